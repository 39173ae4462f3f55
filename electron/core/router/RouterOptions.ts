import type { CallBeginObserver, CallObserver } from '../activity/CallRecord.js';
import type { UrlPolicy } from '../browser/urlPolicy.js';
import type { Logger } from '../platform/Logger.js';
import type { Upstream } from '../upstream/UpstreamClient.js';
import type { RouterSettings } from './RouterSettings.js';

/** What a Router is built from: the profile's settings, and how it reaches upstream, the browser and the activity log. */
export interface RouterOptions {
  profile: string;
  settings: RouterSettings;
  logger: Logger;
  startUpstream: (workerIndex: number) => Promise<Upstream>;
  /** Before every call to upstream: the browser is there and prepared (see `ProfileBrowser.ready`). */
  browserReady?: () => Promise<void>;
  /** The profile's folder for files tools read and write (one folder per session inside it). */
  filesDir: string;
  /** What agents may navigate to (the browser layer knows its DevTools port and the folders to protect). */
  urlPolicy?: () => UrlPolicy | undefined;
  /** Told about every agent call once it is answered (the activity log). */
  observe?: CallObserver | undefined;
  /** Told when an observed agent call begins (the calls in flight, for the activity log after a crash). */
  began?: CallBeginObserver | undefined;
  /** The browser is one tabmux did not launch: tabs nobody owns there are the user's, never shown to agents. */
  externalBrowser?: boolean | undefined;
  /** The browser itself stopped answering (since when, epoch ms), or answers again (null). */
  browserSilence?: ((silentSince: number | null) => void) | undefined;
  /** A call's arguments as a person may see them while it waits for approval (the activity log's redaction). */
  redactArgs?: ((tool: string, args: Record<string, unknown>) => Record<string, unknown>) | undefined;
}
