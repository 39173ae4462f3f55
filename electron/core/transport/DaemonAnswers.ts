import { TabmuxError } from '../../../shared/errors.js';
import { withDeadline } from '../../../shared/withDeadline.js';

export interface DaemonAnswersOptions {
  /** Asks the daemon something it answers at once from its event loop; undefined when there is no connection to ask on. */
  ask: () => Promise<unknown> | undefined;
  /** The daemon left a question unanswered for `answerWithinMs` while calls were out. */
  onUnanswered: () => void;
  /** How often the daemon is asked while calls are out: every 5 s, or as often as an answer may take if that is less. */
  everyMs?: number;
  /** How long an answer may take (a connection's hello is given as long). */
  answerWithinMs: number;
}

const EVERY_MS = 5_000;

/**
 * Whether the daemon still answers while an agent's calls wait on it. A call may rightly take minutes (a slow page, a
 * person to approve it), so it has no deadline of its own here; but a daemon whose process is stopped (SIGSTOP, a
 * suspended job) or stuck keeps its connections open and answers nothing, and the agent would wait for ever. So
 * while any call is out the daemon is asked a question it answers from its event loop at once, every few seconds, on
 * a connection of its own; one left unanswered past the deadline ends the wait.
 */
export class DaemonAnswers {
  readonly #options: DaemonAnswersOptions;
  #outstanding = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #asking = false;

  constructor(options: DaemonAnswersOptions) {
    this.#options = options;
  }

  /** A call went out; the returned function says it came back (calling it again does nothing). */
  begin(): () => void {
    this.#outstanding++;
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => void this.#check(), this.#options.everyMs ?? Math.min(EVERY_MS, this.#options.answerWithinMs));
      this.#timer.unref();
    }
    let ended = false;
    return () => {
      if (ended) {
        return;
      }
      ended = true;
      // The timer stops at its next turn with nothing out: a call after another keeps it rather than making a new one.
      this.#outstanding--;
    };
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #check(): Promise<void> {
    if (this.#outstanding === 0) {
      this.#stop();
      return;
    }
    if (this.#asking) {
      return;
    }
    const question = this.#options.ask();
    if (question === undefined) {
      return;
    }
    this.#asking = true;
    // Any reply will do, an error included; a closed connection is told to the calls by the connection itself.
    const answered = question.then(
      () => true,
      () => true,
    );
    const inTime = await withDeadline(answered, this.#options.answerWithinMs, false);
    this.#asking = false;
    if (!inTime && this.#outstanding > 0) {
      this.#options.onUnanswered();
    }
  }

  /** Stops asking, whatever is out (the bridge is closing). */
  dispose(): void {
    this.#stop();
  }
}

/** What a call that waited on a daemon which stopped answering is told. */
export function stoppedAnswering(profile: string, pid: number | undefined): TabmuxError {
  return new TabmuxError(
    'daemon_unresponsive',
    `the tabmux daemon for profile ${profile}${pid === undefined ? '' : ` (pid ${pid})`} stopped answering while this call was under way: its process is stopped or stuck, so the call may or may not have run. ` +
      `The next call connects again; if the daemon still does not answer, tabmux daemon stop --profile ${profile} ends it.`,
  );
}
