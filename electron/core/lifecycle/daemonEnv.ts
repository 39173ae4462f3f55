/**
 * glibc's malloc settings for a daemon, one `name=value` each:
 * - allocations of 128 KiB and more always get pages of their own, given back to the system when freed. Left to
 *   itself, glibc raises that limit to the size of the largest such block freed so far (the daemon's own code as it
 *   is read at start, a large snapshot reply), after which blocks up to that size come from the heap shared with
 *   small ones and stay resident while anything near them lives: a daemon that runs for days keeps the high-water
 *   mark of its busiest moment.
 * - at most two malloc arenas: glibc gives each thread that allocates (V8's compiler and collector threads, Node's
 *   thread pool) an arena of its own on a machine with cores to spare, and what one holds stays resident while the
 *   daemon waits for its agents. The daemon's own work runs on one thread.
 * `npm run bench`, the memory rows. Other C libraries ignore the variable.
 */
const MALLOC_TUNABLES = ['glibc.malloc.mmap_threshold=131072', 'glibc.malloc.arena_max=2'];

/** What GLIBC_TUNABLES was before daemonEnv added to it ('' for unset), for the daemon's own children. */
const BEFORE = 'TABMUX_GLIBC_TUNABLES_BEFORE';

/**
 * The environment of a `tabmux daemon run` that tabmux starts: the caller's, Node-mode for an Electron binary, and
 * the malloc settings above added to any GLIBC_TUNABLES the user set (a setting of their own for the same name wins).
 */
export function daemonEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own = base['GLIBC_TUNABLES'] ?? '';
  const ownNames = new Set(own.split(':').map(tunableName));
  const added = MALLOC_TUNABLES.filter((tunable) => !ownNames.has(tunableName(tunable)));
  const tunables = [own, ...added].filter((part) => part !== '').join(':');
  return { ...base, ELECTRON_RUN_AS_NODE: '1', GLIBC_TUNABLES: tunables, [BEFORE]: own };
}

/** `glibc.malloc.arena_max` of `glibc.malloc.arena_max=2`. */
function tunableName(tunable: string): string {
  return tunable.split('=', 1)[0] ?? tunable;
}

/**
 * Puts GLIBC_TUNABLES back as the user had it, in the daemon's own environment once it runs (glibc read it at the
 * start already): the processes the daemon starts, Chrome and the upstream workers, start as they would without
 * tabmux (a worker loads many large files at its start, which a fixed threshold makes slower).
 */
export function restoreUserMallocEnv(env: NodeJS.ProcessEnv): void {
  const before = env[BEFORE];
  if (before === undefined) {
    return;
  }
  if (before === '') {
    delete env['GLIBC_TUNABLES'];
  } else {
    env['GLIBC_TUNABLES'] = before;
  }
  Reflect.deleteProperty(env, BEFORE);
}
