import { fileRefusal, NO_FILES, type FileScope } from './fileAccess.js';

/**
 * Which URLs a tab may load. The browser's control surface is out of reach: its DevTools port (on any spelling of
 * a host: `127.1`, `0x7f000001`, `localhost.`...), its WebUI and DevTools pages (`chrome://inspect` lists and closes
 * every tab), tabmux's dashboards (their WebSocket steers every session). Everything else on the web stays reachable.
 * `file:` is an allow-list by whose tab asks (see `fileAccess.ts`): an agent session's tabs read its own folder only;
 * nothing under the process file system, `/dev` or tabmux's folders is read by any tab.
 */
export interface UrlPolicy {
  /**
   * Why a request (what the network stack sees: http(s), file) is refused, or undefined when it may go. `files`
   * says whose tab asks; without it the tab reads no files.
   */
  requestRefusal(url: string, files?: FileScope): string | undefined;
  /** Why a top-level navigation is refused; covers what never reaches the network stack (WebUI, DevTools). */
  navigationRefusal(url: string, files?: FileScope): string | undefined;
  /** Whether the URL reads a file (itself, or the page `view-source:` shows): only then does `files` matter. */
  readsFile(url: string): boolean;
}

export interface UrlPolicyOptions {
  /** The browser's DevTools port, when it has one on this machine. */
  debuggingPort: number | null;
  /** tabmux's folders: no tab reads them through `file://`, but a session's tabs its own folder inside them. */
  protectedRoots: readonly string[];
  /**
   * The ports tabmux's dashboards listen on now (see DashboardRegistry); read at each decision, since dashboards
   * come and go while the browser runs. A page at a dashboard's origin could use its WebSocket.
   */
  dashboardPorts?: () => ReadonlySet<number>;
}

/** Schemes a tab may navigate to; `chrome:`, `devtools:`, `chrome-untrusted:` and the like are the browser's own. */
const NAVIGABLE = new Set(['http:', 'https:', 'about:', 'data:', 'blob:', 'file:', 'chrome-error:']);
const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'ws:': '80', 'https:': '443', 'wss:': '443' };
/** Browser pages that show nothing of other tabs and that Chrome itself opens. */
const HARMLESS = new Set(['about:blank', 'about:srcdoc', 'chrome://newtab/', 'chrome://new-tab-page/']);

/** The URL, parsed as the browser parses it (scheme lowercased, `..` and `%2e%2e` segments applied), if it parses. */
function parsed(raw: string): URL | undefined {
  try {
    return new URL(raw.trim());
  } catch {
    return undefined;
  }
}

export function createUrlPolicy(options: UrlPolicyOptions): UrlPolicy {
  const roots = { protectedRoots: options.protectedRoots };
  const port = options.debuggingPort === null ? null : String(options.debuggingPort);

  const requestRefusal = (raw: string, files: FileScope = NO_FILES): string | undefined => {
    const url = parsed(raw);
    if (url === undefined) {
      return undefined;
    }
    if (url.protocol === 'file:') {
      return fileRefusal(url, files, roots);
    }
    // The port is random and on loopback: any host name that reaches it is the browser's own endpoint.
    const web = url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'ws:' || url.protocol === 'wss:';
    if (port !== null && url.port === port && web) {
      return "the browser's DevTools endpoint";
    }
    // Like the DevTools port, on any host spelling; a dashboard on a scheme's default port has no port in the URL.
    if (web && options.dashboardPorts?.().has(Number(url.port || DEFAULT_PORTS[url.protocol]))) {
      return "tabmux's dashboard";
    }
    return undefined;
  };

  const navigationRefusal = (raw: string, files: FileScope = NO_FILES): string | undefined => {
    const trimmed = raw.trim();
    if (trimmed === '' || HARMLESS.has(trimmed)) {
      return undefined;
    }
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      return undefined;
    }
    if (url.protocol === 'view-source:') {
      const inner = trimmed.slice('view-source:'.length);
      return navigationRefusal(inner, files) ?? requestRefusal(inner, files);
    }
    if (!NAVIGABLE.has(url.protocol)) {
      return `${url.protocol}// pages are the browser's own`;
    }
    return requestRefusal(trimmed, files);
  };

  const readsFile = (raw: string): boolean => {
    const url = parsed(raw);
    return url?.protocol === 'file:' || (url?.protocol === 'view-source:' && readsFile(raw.trim().slice('view-source:'.length)));
  };

  return { requestRefusal, navigationRefusal, readsFile };
}
