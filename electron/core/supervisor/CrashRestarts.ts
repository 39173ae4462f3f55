import type { ProfileState } from '../../../shared/model.js';
import { daemonLogTail } from '../lifecycle/daemonLog.js';
import type { Logger } from '../platform/Logger.js';
import type { TabmuxPaths } from '../platform/paths.js';
import { classifyDaemonExit } from './daemonExit.js';
import type { DaemonWatch } from './DaemonWatch.js';
import type { Slot } from './Slot.js';

export interface CrashRestartsHost {
  paths: TabmuxPaths;
  logger: Logger;
  disposed: () => boolean;
  set: (slot: Slot, state: ProfileState, lastError: string | null) => void;
  /** Starts the profile's daemon again (the supervisor's launch, as `restarting`). */
  relaunch: (slot: Slot) => void;
  /** See daemonExit.ts, SLOW_STOP_MS. */
  slowStopMs?: number;
  /** See daemonExit.ts, STUCK_STOP_MS. */
  stuckStopMs?: number;
}

/**
 * What follows a watched daemon's connection closing: a clean stop, or a crash, told with the end of its log and,
 * for a daemon this supervisor started, restarted after the restart policy's delay.
 */
export class CrashRestarts {
  readonly #host: CrashRestartsHost;

  constructor(host: CrashRestartsHost) {
    this.#host = host;
  }

  /** The watch on the profile's daemon closed: a stop someone asked for, a clean exit, or a crash. */
  async closed(slot: Slot, watch: DaemonWatch | undefined): Promise<void> {
    if (!watch || slot.watch !== watch || this.#host.disposed()) {
      return;
    }
    slot.watch = null;
    if (slot.busy) {
      // A stop or restart asked for this; it sets the state itself.
      return;
    }
    slot.busy = true;
    this.#host.set(slot, 'stopping', null);
    const exit = await classifyDaemonExit(this.#host.paths, slot.name, watch.pid, {
      abandoned: this.#host.disposed,
      ...(this.#host.slowStopMs === undefined ? {} : { slowAfterMs: this.#host.slowStopMs }),
      ...(this.#host.stuckStopMs === undefined ? {} : { stuckAfterMs: this.#host.stuckStopMs }),
      onSlow: (waitedMs) => {
        if (!this.#host.disposed()) {
          this.#host.set(slot, 'stopping', `The daemon (pid ${watch.pid}) closed its connections ${Math.round(waitedMs / 1000)} s ago and is still stopping (closing its Chrome and workers); the profile shows stopped once it has exited.`);
        }
      },
    });
    slot.busy = false;
    if (this.#host.disposed()) {
      return;
    }
    if (exit === 'stopped') {
      this.#host.set(slot, 'stopped', null);
      return;
    }
    const log = await daemonLogTail(this.#host.paths, slot.name, { lines: 12 });
    if (exit === 'stuck') {
      // Not restarted: the process still holds the profile, so a new daemon could not take it.
      this.#host.logger.warn(`profile ${slot.name}: daemon pid ${watch.pid} closed its connections and did not exit`);
      this.#host.set(slot, 'crashed', `The daemon (pid ${watch.pid}) closed its connections and has not exited since; Stop ends it (from a shell: tabmux daemon stop --profile ${slot.name}). Last log lines:\n${log}`);
      return;
    }
    const reason = `The daemon (pid ${watch.pid}) exited unexpectedly. Last log lines:\n${log}`;
    this.#host.logger.warn(`profile ${slot.name}: daemon pid ${watch.pid} died`);
    this.#host.set(slot, 'crashed', reason);
    if (slot.ours) {
      this.schedule(slot, slot.readyAt === null ? null : Date.now() - slot.readyAt);
    }
  }

  /** The daemon failed: restart it after the policy's delay, or give up on quick failures in a row and say so. */
  schedule(slot: Slot, upForMs: number | null): void {
    const decision = slot.policy.recordFailure(upForMs);
    if (!decision.restart) {
      this.#host.set(
        slot,
        'crashed',
        `${slot.lastError ?? 'The daemon failed.'}\nGave up after ${decision.quickFailures} quick failures in a row; fix the cause shown above, then start the profile again.`,
      );
      return;
    }
    this.#host.logger.info(`profile ${slot.name}: restarting in ${decision.delayMs} ms`);
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = null;
      this.#host.relaunch(slot);
    }, decision.delayMs);
  }

  /** A person took the profile in hand: no restart is pending behind their back. */
  cancel(slot: Slot): void {
    if (slot.restartTimer) {
      clearTimeout(slot.restartTimer);
      slot.restartTimer = null;
    }
  }
}
