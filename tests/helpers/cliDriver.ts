import { isProcessAlive } from '../../electron/core/process/processes.js';
import { runCli, type CliResult } from './runCli.js';

export interface CliDriver {
  /** Runs the CLI; a run that outlives `timeoutMs` is killed and comes back with code null. */
  tabmux: (args: readonly string[], extraEnv?: Record<string, string>, timeoutMs?: number) => Promise<CliResult>;
  /** Runs a command that must succeed and returns its stdout. */
  ok: (args: readonly string[], extraEnv?: Record<string, string>) => Promise<string>;
  /** Runs a command that must succeed with `--json` and parses its stdout. */
  json: <T>(args: readonly string[]) => Promise<T>;
  /** Creates a session and returns its id. */
  newSession: (label?: string) => Promise<string>;
}

/**
 * The CLI as scripts use it against one TABMUX_HOME: headless, and with no inherited TABMUX_* setting, so only what
 * a test sets applies.
 */
export function cliDriver(home: string): CliDriver {
  const tabmux = (args: readonly string[], extraEnv: Record<string, string> = {}, timeoutMs = 45_000): Promise<CliResult> =>
    runCli(args, { TABMUX_HOME: home, TABMUX_HEADLESS: '1', ...extraEnv }, { timeoutMs, isolated: true });

  const ok = async (args: readonly string[], extraEnv: Record<string, string> = {}): Promise<string> => {
    const run = await tabmux(args, extraEnv);
    if (run.code !== 0) {
      throw new Error(`tabmux ${args.join(' ')} exited ${String(run.code)}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
    }
    return run.stdout;
  };

  return {
    tabmux,
    ok,
    json: async <T>(args: readonly string[]): Promise<T> => JSON.parse(await ok([...args, '--json'])) as T,
    newSession: async (label?: string): Promise<string> => (await ok(label === undefined ? ['session', 'create'] : ['session', 'create', '--label', label])).trim(),
  };
}

/**
 * Whether a process with this pid runs. A zombie does not: it has exited, and only waits for a parent to reap it,
 * which where nothing reaps orphans may never happen.
 */
export function alive(pid: number): boolean {
  return isProcessAlive(pid);
}

/** The uid token of the element with this role and name in a snapshot the CLI printed. */
export function tokenOf(snapshot: string, role: string, name: string): string {
  const match = new RegExp(`uid=(\\S+) ${role} "${name}"`).exec(snapshot);
  if (!match?.[1]) {
    throw new Error(`no ${role} "${name}" in:\n${snapshot}`);
  }
  return match[1];
}
