/** How much bytecode a function runs before V8 11 considers optimizing it, by default. */
export const V8_11_INTERRUPT_BUDGET = 67584;
/** The budget the bridge lowers it to: an eighth of the default. */
export const LOWERED_INTERRUPT_BUDGET = 8192;

/**
 * Has V8 optimize the functions that run often from now on after fewer runs. Each call an agent makes passes through
 * the bridge's few dozen small functions once, so with V8's default budget a bridge serves its first few thousand
 * calls from baseline code, which is larger and slower; between two calls of an agent the browser and the other
 * processes run, so that code is out of the CPU's caches again at each call. The bridge calls this once it has served
 * its client's first call, so that code run once at start-up is not optimized for nothing. The daemon does not: there
 * the same setting adds about 1 MiB to a daemon that served 100 sessions' creation (`npm run bench`, the memory rows),
 * against its 55 MiB goal. Node's `v8` module is taken here, not at start: it takes milliseconds to load, which would
 * add to every agent's attach (and as a built-in, so that no ES module loader starts).
 *
 * Only on V8 11 (Node 20), where this budget decides when a function is optimized and where its effect was measured:
 * later V8 versions tier up by other counts, and are left as they are. A budget given to Node (`--interrupt-budget` on
 * its command line or in NODE_OPTIONS) is kept as given. Returns whether the budget was lowered.
 */
export function optimizeSooner(v8Version: string = process.versions.v8, nodeFlags: readonly string[] = givenNodeFlags()): boolean {
  if (!v8Version.startsWith('11.') || nodeFlags.some((flag) => /^--interrupt[-_]budget(=|$)/.test(flag))) {
    return false;
  }
  process.getBuiltinModule('node:v8').setFlagsFromString(`--interrupt-budget=${LOWERED_INTERRUPT_BUDGET}`);
  return true;
}

/** The flags this process's Node was started with: its command line's, then NODE_OPTIONS'. */
function givenNodeFlags(): string[] {
  return [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/).filter((flag) => flag !== '')];
}
