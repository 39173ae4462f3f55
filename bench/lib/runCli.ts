import { execFile } from 'node:child_process';
import { cliEntryPoint } from '../../electron/core/platform/version.js';

/** Runs `tabmux ARGS` as a user would and resolves with its stdout; a non-zero exit is a broken bench, so it rejects. */
export function runCli(args: readonly string[], env: Readonly<Record<string, string>>, timeoutMs = 90_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cliEntryPoint(), ...args], { env: { ...process.env, ...env }, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`tabmux ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      } else {
        resolve(stdout);
      }
    });
  });
}
