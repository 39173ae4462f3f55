import type { WorkerInfo, WorkerState } from '../../../shared/model.js';
import type { ToolResult } from '../../../shared/protocol.js';
import { TabmuxError } from '../../../shared/errors.js';
import type { Upstream } from '../UpstreamClient.js';
import { FairQueue } from './FairQueue.js';

/**
 * One upstream child and everything addressed in its terms: its queue, which session owns which of its page ids,
 * and its own selected page (diagnostic only).
 */
export class Worker {
  upstream: Upstream | null = null;
  state: WorkerState = 'stopped';
  lastError: string | null = null;
  selectedPageId: number | null = null;
  /** pageId (in this worker's terms) -> owning session id. */
  readonly owners = new Map<number, string>();
  readonly queue: FairQueue;
  sessions = 0;
  #starting: Promise<Upstream> | undefined;

  constructor(
    readonly index: number,
    maxInFlight: number,
    options: { isPaused: (sessionId: string) => boolean; onChange: () => void },
  ) {
    this.queue = new FairQueue(index, maxInFlight, options);
  }

  /** Starts the upstream once; concurrent callers share the same start. */
  ensureStarted(start: () => Promise<Upstream>): Promise<Upstream> {
    if (this.upstream) {
      return Promise.resolve(this.upstream);
    }
    if (!this.#starting) {
      this.state = 'starting';
      this.#starting = start().then(
        (upstream) => {
          this.upstream = upstream;
          this.state = 'ready';
          this.lastError = null;
          this.#starting = undefined;
          return upstream;
        },
        (error: unknown) => {
          this.state = 'failed';
          this.lastError = TabmuxError.from(error).message;
          this.#starting = undefined;
          throw error;
        },
      );
    }
    return this.#starting;
  }

  async call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const upstream = this.upstream;
    if (!upstream) {
      throw new TabmuxError('upstream_unavailable', `upstream worker ${this.index} is not running${this.lastError ? ` (${this.lastError})` : ''}; try again shortly`);
    }
    return upstream.callTool(name, args);
  }

  info(): WorkerInfo {
    return {
      index: this.index,
      pid: this.upstream?.pid ?? null,
      state: this.state,
      selectedPageId: this.selectedPageId,
      inFlight: this.queue.inFlight,
      sessions: this.sessions,
      lastError: this.lastError,
    };
  }
}
