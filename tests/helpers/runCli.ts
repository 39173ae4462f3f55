import { execFile } from 'node:child_process';
import { cliEntryPoint, packageRoot } from '../../electron/core/platform/version.js';

export interface CliResult {
  /** The exit code; null when the run was killed, as one that outlives its timeout is. */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  /** A run that outlives this is killed (SIGKILL) and comes back with code null. */
  timeoutMs?: number;
  /** Leaves out every inherited TABMUX_* setting, so only what `env` sets applies. */
  isolated?: boolean;
}

/** The compiled CLI, as a user (or an agent's script) runs it: the installed `tabmux` command. */
export function cliPath(): string {
  return cliEntryPoint();
}

/** Runs `tabmux ARGS` with the given environment added (TABMUX_HOME at least) and resolves with its outcome. */
export function runCli(args: readonly string[], env: Record<string, string>, options: CliRunOptions = {}): Promise<CliResult> {
  const { timeoutMs = 90_000, isolated = false } = options;
  const inherited = isolated ? withoutTabmuxSettings(process.env) : process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cliPath(), ...args],
      { cwd: packageRoot(), env: { ...inherited, ...env }, timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : error.signal !== undefined && error.signal !== null ? null : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function withoutTabmuxSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('TABMUX_')) {
      kept[key] = value;
    }
  }
  return kept;
}
