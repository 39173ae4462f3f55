import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

/**
 * Which URLs a tab may load. The browser's control surface is out of reach: its DevTools port (on any spelling of
 * a host: `127.1`, `0x7f000001`, `localhost.`...), its WebUI and DevTools pages (`chrome://inspect` lists and closes
 * every tab), tabmux's dashboards (their WebSocket steers every session), and tabmux's own folders through `file://`
 * (the config, the user-data-dirs with their `DevToolsActivePort`, the runtime dir). Everything else on the web and
 * on disk stays reachable.
 */
export interface UrlPolicy {
  /** Why a request (what the network stack sees: http(s), file) is refused, or undefined when it may go. */
  requestRefusal(url: string): string | undefined;
  /** Why a top-level navigation is refused; covers what never reaches the network stack (WebUI, DevTools). */
  navigationRefusal(url: string): string | undefined;
}

export interface UrlPolicyOptions {
  /** The browser's DevTools port, when it has one on this machine. */
  debuggingPort: number | null;
  /** Folders no tab may read through `file://`. */
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

/** Resolves symbolic links in the longest existing prefix, so a link anywhere on the way is seen through. */
function realPath(path: string): string {
  let current = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(current), ...rest);
    } catch {
      const parent = dirname(current);
      if (parent === current) {
        return path;
      }
      rest.unshift(basename(current));
      current = parent;
    }
  }
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

export function createUrlPolicy(options: UrlPolicyOptions): UrlPolicy {
  const roots = options.protectedRoots.map((root) => realPath(resolve(root)));
  const port = options.debuggingPort === null ? null : String(options.debuggingPort);

  const requestRefusal = (raw: string): string | undefined => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return undefined;
    }
    if (url.protocol === 'file:') {
      let path: string;
      try {
        path = decodeURIComponent(url.pathname);
      } catch {
        return 'a file URL that does not decode';
      }
      if (path.includes('\0')) {
        return 'a file URL with a NUL byte';
      }
      const real = realPath(resolve(path));
      return roots.some((root) => inside(root, real)) ? `${path} is in tabmux's own files` : undefined;
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

  const navigationRefusal = (raw: string): string | undefined => {
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
      return navigationRefusal(inner) ?? requestRefusal(inner);
    }
    if (!NAVIGABLE.has(url.protocol)) {
      return `${url.protocol}// pages are the browser's own`;
    }
    return requestRefusal(trimmed);
  };

  return { requestRefusal, navigationRefusal };
}
