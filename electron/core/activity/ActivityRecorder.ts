import { ACTIVITY_FORMAT_VERSION, type ActivityEntry, type ActivityPage } from '../../../shared/activity.js';
import { pageSecretsOf, type CallRecord } from './CallRecord.js';
import { TabmuxError } from '../../../shared/errors.js';
import type { TabPicture } from '../../../shared/model.js';
import type { ActivityLogStore } from './ActivityLogStore.js';
import type { ActivityPictures } from './ActivityPictures.js';
import { outcomeOf } from '../../../shared/outcomeOf.js';
import { redactArgs } from './redactArgs.js';
import { redactUrl } from './redactUrl.js';
import { summaryOf } from './summaryOf.js';
import { shownParts, shownUrl } from '../../../shared/shownUrl.js';

export interface ActivityRecorderOptions {
  store: ActivityLogStore;
  /** The profile's `logValues`: keep typed values and header values in clear. */
  keepValues: boolean;
  /** Each entry once it is queued for the disk (the `activity` event). */
  emit: (entry: ActivityEntry) => void;
  startedAt?: number;
  /** Whether the daemon is stopping: a call it cuts off is `cancelled`, whatever error its end took the form of. */
  stopping?: () => boolean;
  /** Pictures of the tab after page-changing calls: how to take one (off the reply path) and where they go. */
  pictures?: { capture: (tabId: string) => Promise<TabPicture | undefined>; store: ActivityPictures; onError: (error: unknown) => void };
}

/**
 * Calls after which the tab gets a picture. By default only navigations: after typing, a picture would show in clear
 * what the log redacts (a token typed into a text field); with `logValues` every page-changing call gets one.
 */
const PICTURED_NAVIGATIONS: ReadonlySet<string> = new Set(['navigate_page', 'new_page']);
const PICTURED_WITH_VALUES: ReadonlySet<string> = new Set([...PICTURED_NAVIGATIONS, 'click', 'drag', 'fill', 'fill_form', 'handle_dialog', 'hover', 'press_key', 'type_text', 'upload_file', 'evaluate_script']);
/** Pictures waiting to be taken; past this, calls go without one rather than queue up work. */
const MAX_PENDING_PICTURES = 4;
/** Pictures are trimmed to the retention settings every this many. */
const RETAIN_EVERY = 50;

/** Typed values remembered per session, to cut them out of later answers (a snapshot shows what was filled in). */
const SECRETS_PER_SESSION = 200;
const SESSIONS_REMEMBERED = 1000;
const NO_SECRETS: readonly string[] = [];

/**
 * Turns the router's call records into activity entries. `record` makes the entry (redaction, the summary, the JSON
 * line) and hands it to the store at once; the reply waits for the write (bounded by the store), so whatever a
 * caller saw answered is in the log, even if the daemon is killed right after. Pictures are taken after the reply.
 */
export class ActivityRecorder {
  readonly #options: ActivityRecorderOptions;
  readonly #idPrefix: string;
  #counter = 0;
  readonly #secrets = new Map<string, readonly string[]>();
  #pendingPictures = 0;
  #pictureChain: Promise<void> = Promise.resolve();
  #picturesSaved = 0;
  #lastUrl: { url: string; redacted: string } | undefined;
  /** The last answer summarized with no values to cut out of it: an agent that polls gets the same answer again. */
  #lastSummary: { text: string; summary: string } | undefined;

  constructor(options: ActivityRecorderOptions) {
    this.#options = options;
    this.#idPrefix = (options.startedAt ?? Date.now()).toString(36);
  }

  /** Resolves once the call's entry is written, or the store gave up waiting for the disk (see ActivityLogStore). */
  readonly record = (call: CallRecord): Promise<void> => {
    const entry = this.#entry(call);
    const picture = this.#pictureFor(call, entry);
    if (picture !== undefined) {
      entry.picture = picture;
    }
    const written = this.#options.store.append(JSON.stringify(entry));
    this.#options.emit(entry);
    return written;
  };

  /** Resolves once every call recorded so far is on disk (or the disk refused it). */
  flush(): Promise<void> {
    return this.#options.store.flush();
  }

  /** Resolves once every picture asked for so far is taken (or given up). */
  picturesTaken(): Promise<void> {
    return this.#pictureChain;
  }

  /**
   * A session's calls mostly name the page they were on before: the last URL redacted is kept, not redacted again. A
   * URL is recorded up to the length status shows (see shownUrl): a page cannot fill the log every session shares.
   */
  #redactedUrl(url: string): string {
    if (this.#lastUrl?.url !== url) {
      const { start, leftOut } = shownParts(url);
      this.#lastUrl = { url, redacted: redactUrl(start).url + leftOut };
    }
    return this.#lastUrl.redacted;
  }

  #entry(call: CallRecord): ActivityEntry {
    const keep = this.#options.keepValues;
    const redacted = keep ? { args: call.args, redacted: [], secrets: [] } : redactArgs(call.tool, call.args);
    // A dialog's text is the page's and shows in this answer only: it is cut out here, not remembered for later ones.
    const secrets = keep ? [] : [...this.#remember(call.sessionId, redacted.secrets), ...pageSecretsOf(call.result)];
    const page = (value: ActivityPage | null): ActivityPage | null =>
      value === null ? null : { pageId: value.pageId, url: keep ? shownUrl(value.url) : this.#redactedUrl(value.url) };
    const error = call.error && this.#options.stopping?.() === true ? stoppedError(call.error) : call.error;
    const message = error ? error.message : undefined;
    return {
      v: ACTIVITY_FORMAT_VERSION,
      id: `${this.#idPrefix}-${(this.#counter++).toString(36)}`,
      session: call.sessionId,
      label: call.label,
      tool: call.tool,
      args: shownArgs(redacted.args),
      redacted: redacted.redacted,
      at: call.at,
      durationMs: call.durationMs,
      outcome: outcomeOf(call.result, error),
      error: error && message !== undefined ? { code: error.code, message: summaryOf(message, secrets, 1000) } : null,
      summary: this.#summaryOf(call.result ? textOfResult(call.result.content) : (message ?? ''), secrets),
      pageBefore: page(call.pageBefore),
      pageAfter: page(call.pageAfter),
      opened: call.opened.map((opened) => page(opened) ?? opened),
    };
  }

  #summaryOf(text: string, secrets: readonly string[]): string {
    if (secrets.length > 0) {
      return summaryOf(text, secrets);
    }
    if (this.#lastSummary?.text !== text) {
      this.#lastSummary = { text, summary: summaryOf(text, secrets) };
    }
    return this.#lastSummary.summary;
  }

  /** Queues a picture of the tab after a page-changing call; returns its name, or undefined when none is taken. */
  #pictureFor(call: CallRecord, entry: ActivityEntry): string | undefined {
    const pictures = this.#options.pictures;
    const tools = this.#options.keepValues ? PICTURED_WITH_VALUES : PICTURED_NAVIGATIONS;
    const tabId = call.tabAfter;
    if (!pictures || tabId === null || entry.outcome !== 'ok' || !tools.has(call.tool) || this.#pendingPictures >= MAX_PENDING_PICTURES) {
      return undefined;
    }
    const name = `${entry.id}.jpg`;
    this.#pendingPictures++;
    // The picture is taken after the reply has gone out: the capture waits a turn of the event loop.
    this.#pictureChain = this.#pictureChain.then(async () => {
      try {
        await new Promise((resolve) => setImmediate(resolve));
        const picture = await pictures.capture(tabId);
        if (picture) {
          await pictures.store.save(name, Buffer.from(picture.data, 'base64'));
          if (++this.#picturesSaved % RETAIN_EVERY === 0) {
            await pictures.store.retain();
          }
        }
      } catch (error) {
        pictures.onError(error);
      } finally {
        this.#pendingPictures--;
      }
    });
    return name;
  }

  /** Adds this call's typed values to its session's and returns them all. */
  #remember(sessionId: string, fresh: readonly string[]): readonly string[] {
    const known = this.#secrets.get(sessionId) ?? NO_SECRETS;
    this.#secrets.delete(sessionId);
    const added = fresh.filter((value) => !known.includes(value));
    const all = added.length === 0 ? known : [...known, ...added].slice(-SECRETS_PER_SESSION);
    this.#secrets.set(sessionId, all);
    if (this.#secrets.size > SESSIONS_REMEMBERED) {
      const oldest = this.#secrets.keys().next().value;
      if (oldest !== undefined) {
        this.#secrets.delete(oldest);
      }
    }
    return all;
  }
}

/**
 * A call left without an answer while the daemon stops ended because of the stop, whether that reached it as its
 * client's connection closing, its worker exiting or its browser closing: it is recorded as the stop it was. A
 * refusal or a timeout that happened meanwhile is kept as it was.
 */
function stoppedError(error: TabmuxError): TabmuxError {
  const outcome = outcomeOf(undefined, error);
  if (outcome !== 'cancelled' && outcome !== 'worker_crashed' && outcome !== 'failed') {
    return error;
  }
  return error.code === 'daemon_stopping' || error.code === 'daemon_restarting' ? error : new TabmuxError('daemon_stopping', `the daemon stopped while the call waited or ran (${error.message})`);
}

function textOfResult(content: readonly { type: string; text?: string | undefined }[]): string {
  for (const item of content) {
    if (item.type === 'text' && typeof item.text === 'string') {
      return item.text;
    }
  }
  return content.length > 0 ? `[${content.map((item) => item.type).join(', ')}]` : '';
}

/**
 * The most characters of one argument string an entry keeps: an agent may send a script or a URL of megabytes, and
 * the log is one per profile, kept to a size; whole, a few such calls would push every other session's out of it.
 */
export const MAX_LOGGED_ARGUMENT_CHARS = 4096;

/** The arguments with every string in them, at any depth, kept to MAX_LOGGED_ARGUMENT_CHARS. */
function shownArgs(args: Record<string, unknown>): Record<string, unknown> {
  const shown = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') {
      return shownUrl(value, MAX_LOGGED_ARGUMENT_CHARS);
    }
    if (depth > 16 || value === null || typeof value !== 'object') {
      return value;
    }
    if (Array.isArray(value)) {
      return value.map((item) => shown(item, depth + 1));
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shown(item, depth + 1)]));
  };
  return shown(args, 0) as Record<string, unknown>;
}
