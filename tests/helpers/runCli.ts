import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../electron/core/version.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The compiled CLI, as a user (or an agent's script) runs it. */
export function cliPath(): string {
  return join(packageRoot(), 'dist', 'electron', 'bin', 'tabmux.js');
}

/** Runs `tabmux ARGS` with the given environment added (TABMUX_HOME at least) and resolves with its outcome. */
export function runCli(args: readonly string[], env: Record<string, string>, timeoutMs = 90_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath(), ...args], { env: { ...process.env, ...env }, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}
