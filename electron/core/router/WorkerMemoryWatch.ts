import { closeSync, openSync, readSync } from 'node:fs';
import { TabmuxError } from '../../../shared/errors.js';
import type { Logger } from '../platform/Logger.js';
import type { Session } from './Session.js';
import type { Worker } from './Worker.js';

/** How often each running worker's memory is read. */
export const MEMORY_CHECK_MS = 5_000;

/** How far a worker's memory moves before watchers hear of it (a reading every few seconds would be noise). */
const SHOWN_STEP_MB = 16;

const MIB = 1024 * 1024;

export interface WorkerMemoryWatchOptions {
  /** A worker's resident memory past which it is relieved, in MiB. */
  limitMb: number;
  workers: () => readonly Worker[];
  sessionsOn: (worker: Worker) => Session[];
  /** Moves a session to a worker nobody is pinned to; whether it moved (see `WorkerPool.moveToFree`). */
  moveToFree: (session: Session, since: string) => Promise<boolean>;
  /** Runs work in a worker's queue, between its calls (see `WorkerPool.runSystem`). */
  runSystem: (worker: Worker, tool: string, run: () => Promise<void>) => Promise<void>;
  logger: Logger;
  /** Told when a worker's memory moved by a step worth showing (the dashboard's workers). */
  changed?: (() => void) | undefined;
  /** A process's resident memory in bytes; undefined when it cannot be read. Reads /proc by default. */
  residentBytes?: (pid: number) => number | undefined;
}

/**
 * Keeps one page from growing a worker until it runs out of memory under every session it serves. Upstream keeps
 * what the pages it follows log to their console (up to a number of messages, whatever their size) and more, so a page
 * that logs large messages without end grows its worker by tens of MiB a second; at V8's heap limit the worker dies,
 * and every call on it with it. Each running worker's resident memory is read every few seconds; one past the
 * profile's limit (`workerMemoryMb`) is relieved:
 *
 * - the sessions it serves move to workers nobody is pinned to, as far as the pool has room, each told so by its next
 *   result, and are kept apart from then on (a session moving off a busy worker does not join one of the others):
 *   which of their pages logs is not known, and apart none can share a worker with it again;
 * - then, between calls, the worker's upstream is replaced (a fresh one follows the pages its sessions act on, and the
 *   one it selects as it connects), or, with nobody left on an extra worker, stopped. The sessions still on it are
 *   told why.
 *
 * The worker of a session recording a performance trace is left alone until the recording ends: the trace lives in it.
 */
export class WorkerMemoryWatch {
  readonly #options: WorkerMemoryWatchOptions;
  readonly #relieving = new Set<Worker>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: WorkerMemoryWatchOptions) {
    this.#options = options;
  }

  start(intervalMs = MEMORY_CHECK_MS): void {
    this.#timer ??= setInterval(() => void this.check(), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One round: every running worker's memory read, and each one past the limit relieved. Resolves once they are. */
  async check(): Promise<void> {
    const relieving: Array<Promise<void>> = [];
    let moved = false;
    for (const worker of this.#options.workers()) {
      const pid = worker.upstream?.pid;
      const bytes = pid ? (this.#options.residentBytes ?? residentBytes)(pid) : undefined;
      const mb = bytes === undefined ? null : Math.round(bytes / MIB);
      if ((mb === null) !== (worker.residentMb === null) || Math.abs((mb ?? 0) - (worker.residentMb ?? 0)) >= SHOWN_STEP_MB) {
        worker.residentMb = mb;
        moved = true;
      }
      if (!pid || bytes === undefined || bytes <= this.#options.limitMb * MIB || this.#relieving.has(worker) || worker.trace.recording) {
        continue;
      }
      this.#relieving.add(worker);
      relieving.push(
        this.#relieve(worker, pid, Math.round(bytes / MIB))
          .catch((error: unknown) => this.#options.logger.warn(`relieving upstream worker ${worker.index} failed: ${TabmuxError.from(error).message}`))
          .finally(() => this.#relieving.delete(worker)),
      );
    }
    if (moved) {
      this.#options.changed?.();
    }
    await Promise.all(relieving);
  }

  async #relieve(worker: Worker, pid: number, mb: number): Promise<void> {
    const { limitMb, logger } = this.#options;
    const grown = `had grown to ${mb} MiB, over the profile's limit of ${limitMb} MiB (workerMemoryMb)`;
    logger.warn(`upstream worker ${worker.index} (pid ${pid}) ${grown}: upstream keeps what the pages it follows log, and one of them may log without end`);
    const serving = this.#options.sessionsOn(worker);
    if (serving.length > 1) {
      for (const session of serving) {
        for (const other of serving) {
          if (other !== session) {
            session.apart.add(other.id);
          }
        }
      }
      const since = `the one they ran on ${grown}: upstream keeps what the pages it serves log, so sessions there move apart`;
      for (const session of serving) {
        await this.#options.moveToFree(session, since);
      }
    }
    await this.#options.runSystem(worker, 'replace worker', async () => {
      if (worker.upstream?.pid !== pid) {
        // Replaced meanwhile (it exited, or a stuck call had it replaced): the memory went with it.
        return;
      }
      const staying = this.#options.sessionsOn(worker);
      // An extra worker (not the first) nobody is pinned to any more starts again when a session needs it.
      if (staying.length === 0 && worker.index !== 0) {
        logger.info(`stopping upstream worker ${worker.index}: it ${grown} and serves nobody now`);
        await worker.stopUpstream(`upstream worker ${worker.index} ${grown}`);
        worker.state = 'stopped';
        worker.residentMb = null;
        return;
      }
      for (const session of staying) {
        session.notes.push(
          `Note: tabmux replaced the upstream worker your calls run on: it ${grown}. Upstream keeps what the pages it serves log to their console, so a page that logs large messages without end grows it; if one of your pages does, its worker is replaced again each time.`,
        );
      }
      await worker.recycle(`it ${grown}`);
      // Its new process is read at the next round.
      worker.residentMb = null;
    });
  }
}

/** Where `residentBytes` reads a process's status: one buffer for every reading, so a reading leaves no garbage. */
let statusBuffer: Buffer | undefined;
const VM_RSS = Buffer.from('VmRSS:');

/**
 * A process's resident memory from /proc (Linux); undefined elsewhere or once the process is gone. Read into one
 * buffer and parsed in place: it runs every few seconds for the daemon's whole life.
 */
function residentBytes(pid: number): number | undefined {
  statusBuffer ??= Buffer.alloc(4096);
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/status`, 'r');
    const length = readSync(fd, statusBuffer, 0, statusBuffer.length, 0);
    let at = statusBuffer.indexOf(VM_RSS);
    if (at < 0 || at >= length) {
      return undefined;
    }
    at += VM_RSS.length;
    while (at < length && (statusBuffer[at] === 0x20 || statusBuffer[at] === 0x09)) {
      at++;
    }
    let kib = 0;
    for (let digit = statusBuffer[at] ?? 0; at < length && digit >= 0x30 && digit <= 0x39; digit = statusBuffer[++at] ?? 0) {
      kib = kib * 10 + digit - 0x30;
    }
    return kib * 1024;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) {
      closeSync(fd);
    }
  }
}
