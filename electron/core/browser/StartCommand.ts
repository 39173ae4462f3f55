import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import type { Logger } from '../platform/Logger.js';

/**
 * The profile's `--start-command`: how to bring the browser up when it cannot be reached and a call needs it. It
 * runs through `/bin/sh` as the daemon's user, detached, with its output appended to a log file; tabmux never
 * stops what it started (the browser is the user's). Until the browser has been reached after a run, it does not
 * run again within `cooldownMs`, so a browser that keeps failing to come up is not started again on every call.
 */
export class StartCommand {
  readonly #command: string;
  readonly #logFile: string;
  readonly #logger: Logger;
  readonly #cooldownMs: number;
  #lastRunAt = Number.NEGATIVE_INFINITY;

  constructor(command: string, logFile: string, logger: Logger, cooldownMs = 60_000) {
    this.#command = command;
    this.#logFile = logFile;
    this.#logger = logger;
    this.#cooldownMs = cooldownMs;
  }

  /** The browser was reached: if it goes away later, the command may run again at once. */
  succeeded(): void {
    this.#lastRunAt = Number.NEGATIVE_INFINITY;
  }

  /** Starts the command unless it ran within the cooldown; whether it was started now. */
  run(): boolean {
    const now = Date.now();
    if (now - this.#lastRunAt < this.#cooldownMs) {
      return false;
    }
    this.#lastRunAt = now;
    const log = openSync(this.#logFile, 'a', 0o600);
    try {
      const child = spawn('/bin/sh', ['-c', this.#command], { detached: true, stdio: ['ignore', log, log] });
      child.on('error', (error) => this.#logger.warn(`the profile's start command could not run: ${error.message}`));
      child.on('exit', (code, signal) => {
        if (code !== 0) {
          this.#logger.warn(`the profile's start command ended with ${signal ?? `code ${String(code)}`}; its output is in ${this.#logFile}`);
        }
      });
      child.unref();
    } finally {
      closeSync(log);
    }
    this.#logger.info(`the browser was not reachable: ran the profile's start command (output in ${this.#logFile})`);
    return true;
  }
}
