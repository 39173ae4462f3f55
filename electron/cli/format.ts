import { describeLifetime } from '../../shared/daemonLifetime.js';
import type { BrowserInfo, DaemonLifetime, DaemonMemory, DaemonStatus, DownloadsInfo, SessionInfo, TabInfo, WorkerInfo } from '../../shared/model.js';
import type { SessionPageResult, ToolResult } from '../../shared/protocol.js';

export function ago(ms: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 60) {
    return `${seconds}s ago`;
  }
  if (seconds < 3600) {
    return `${Math.round(seconds / 60)}m ago`;
  }
  return `${Math.round(seconds / 3600)}h ago`;
}

/** How long until `ms`, as `ago` says how long since: "in 4s", "in 2m"; "now" once it has come. */
export function untilThen(ms: number, now = Date.now()): string {
  const seconds = Math.round((ms - now) / 1000);
  if (seconds <= 0) {
    return 'now';
  }
  return seconds < 60 ? `in ${seconds}s` : seconds < 3600 ? `in ${Math.round(seconds / 60)}m` : `in ${Math.round(seconds / 3600)}h`;
}

export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  return rows.map((row) => row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0))).join('  ')).join('\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function formatSessions(sessions: readonly SessionInfo[]): string {
  if (sessions.length === 0) {
    return 'no sessions';
  }
  // CLIENT says whether a client connection holds the session, in the dashboard's word: "detached" when none does.
  const rows = [['SESSION', 'LABEL', 'STATE', 'CLIENT', 'PAGE', 'TABS', 'QUEUED', 'LAST USED', 'URL']];
  for (const session of sessions) {
    const current = session.pages.find((page) => page.current);
    rows.push([
      session.id,
      session.label ?? '-',
      session.activity,
      session.owned ? 'connected' : 'detached',
      session.currentPageId === null ? '-' : String(session.currentPageId),
      String(session.pages.length),
      String(session.queued),
      ago(session.lastUsedAt),
      truncate(current?.url ?? '-', 60),
    ]);
  }
  const waiting = sessions.flatMap((session) => (session.waitingForHuman ? [`${session.id} waits for you: ${session.waitingForHuman.requestId}`] : []));
  return withWaiting(table(rows), waiting);
}

/** Where a session is now, in words, after what a command did (`lead`: "opened a tab"); --json has the fields. */
export function formatPageResult(result: SessionPageResult, lead?: string): string {
  const where = result.pageId === null ? 'has no current page (its next call that needs one opens a tab)' : `is on page ${result.pageId}: ${result.url ?? 'about:blank'}`;
  return `${lead === undefined ? '' : `${lead}; `}session ${result.session} ${where}`;
}

/**
 * The table, then a line per session waiting for a person: after the table, so the columns scripts read stay as they
 * were.
 */
function withWaiting(text: string, waiting: readonly string[]): string {
  return waiting.length === 0 ? text : `${text}\n\n${waiting.join('\n')}\n(see them with: tabmux requests; answer with: tabmux answer ID --text TEXT)`;
}

export function formatTabs(tabs: readonly TabInfo[]): string {
  if (tabs.length === 0) {
    return 'no tabs';
  }
  // PAGE, OWNER and ORIGIN keep their places and URL stays last, so scripts that read them keep working.
  const rows = [['PAGE', 'OWNER', 'ORIGIN', 'WINDOW', 'SESSION-PAGE', 'WORKER', 'TITLE', 'URL']];
  for (const tab of tabs) {
    rows.push([
      String(tab.pageId),
      tab.owner ?? '(unowned)',
      tab.origin ?? '-',
      tab.windowId === null ? '-' : String(tab.windowId),
      tab.ownerPageId === null ? '-' : String(tab.ownerPageId),
      tab.ownerWorker === null || tab.ownerWorker === undefined ? '-' : String(tab.ownerWorker),
      truncate(tab.title || '-', 40),
      truncate(tab.url, 80),
    ]);
  }
  const waiting = tabs.flatMap((tab) => (tab.waitingForHuman !== undefined && tab.owner !== null ? [`page ${tab.pageId} (${tab.owner}) waits for you: ${tab.waitingForHuman}`] : []));
  const crashed = tabs.flatMap((tab) => (tab.crashed === undefined ? [] : [`page ${tab.pageId} crashed (${tab.crashed}): Chrome shows its crash page until the tab loads again`]));
  return withWaiting(crashed.length === 0 ? table(rows) : `${table(rows)}\n\n${crashed.join('\n')}`, waiting);
}

/** One phrase for `daemon start`: the launched Chrome's pid and port, or the external browser's address and state. */
export function formatBrowserShort(browser: BrowserInfo): string {
  return browser.kind === 'launched' ? `chrome pid ${String(browser.pid)} port ${String(browser.port)}` : `external browser ${browser.endpoint} ${browser.state}`;
}

/** The status line about the browser; an external one says whether it is reachable and, if not, why and when next. */
export function formatBrowser(status: DaemonStatus, now = Date.now()): string {
  const { browser, chrome } = status;
  if (browser.kind === 'launched') {
    return `chrome pid ${String(chrome.pid)}, port ${String(chrome.port)}, ${chrome.headless === true ? 'headless' : 'headed'}, ${chrome.executable ?? ''}`;
  }
  const details = [
    browser.lastError === null ? undefined : `last error: ${browser.lastError}`,
    browser.attempts > 0 ? `${browser.attempts} failed attempt(s)` : undefined,
    browser.nextRetryAt === null ? undefined : `next retry ${untilThen(browser.nextRetryAt, now)}`,
  ].filter((detail) => detail !== undefined);
  return `external browser ${browser.endpoint}: ${browser.state}${details.length > 0 ? ` (${details.join('; ')})` : ''}`;
}

/**
 * The workers line: each one that runs or has sessions, whom it serves and what it is busy with; the ones that
 * would start for more sessions are counted, not listed (a pool may allow 16).
 */
export function formatWorkers(workers: readonly WorkerInfo[], now = Date.now()): string {
  const shown = workers.filter((worker) => worker.index === 0 || worker.pid !== null || worker.sessions > 0 || worker.state !== 'stopped');
  const parts = shown.map((worker) => {
    if (worker.pid === null) {
      return `#${worker.index} ${worker.state === 'stopped' ? 'not running (starts with its first session)' : worker.state}`;
    }
    const serves = worker.sessionIds && worker.sessionIds.length > 0 ? worker.sessionIds.join(', ') : `${worker.sessions} session(s)`;
    const busy = worker.busy ? `busy with ${worker.busy.tool} of ${worker.busy.sessionId} for ${now - worker.busy.since} ms` : 'idle';
    const memory = typeof worker.residentMb === 'number' ? ` (${worker.residentMb} MiB)` : '';
    return `#${worker.index} ${worker.state} pid ${worker.pid}${memory}, serves ${serves}, ${busy}, upstream selected page ${String(worker.selectedPageId)}`;
  });
  const spare = workers.length - shown.length;
  if (spare > 0) {
    parts.push(`${spare} more start as sessions need them`);
  }
  return `workers: ${parts.join('; ')}`;
}

/** Where agents' downloads go: the status line that tells a person where to find them. */
export function formatDownloads(downloads: DownloadsInfo | undefined): string[] {
  if (!downloads) {
    return [];
  }
  const mib = (bytes: number): string => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
  const { sessionMaxBytes, sessionMaxFiles } = downloads;
  const perSession = sessionMaxBytes === undefined || sessionMaxFiles === undefined ? '' : `, ${mib(sessionMaxBytes)} in ${sessionMaxFiles} files a session`;
  switch (downloads.mode) {
    case 'session':
      return [
        `downloads: each session's in ${downloads.sessionFolder}, up to ${mib(downloads.maxBytes)} each${perSession}${downloads.unownedFolder === null ? '' : `; from tabs no session owns in ${downloads.unownedFolder}`}`,
      ];
    case 'off':
      return ['downloads: refused (the profile sets downloads off)'];
    case 'cancelled':
      return ["downloads: sessions' downloads are cancelled (a browser tabmux did not launch); the user's own are left to the browser"];
  }
}

/** "started on demand, exits after 15 min idle (idle since 12:00:00)". */
function formatLifetime(lifetime: DaemonLifetime): string {
  const since = lifetime.idleSince === null ? '' : ` (idle since ${new Date(lifetime.idleSince).toISOString()})`;
  return `${describeLifetime(lifetime)}${since}`;
}

/** "daemon memory: 55.1 MiB resident (heap 9.8 MiB in use, 1.0 MiB young generation, 2.3 MiB in buffers)". */
function formatMemory(memory: DaemonMemory): string {
  const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `daemon memory: ${mib(memory.rssBytes)} resident (heap ${mib(memory.heapUsedBytes)} in use, ${mib(memory.youngGenerationBytes)} young generation, ${mib(memory.externalBytes)} in buffers)`;
}

/** "browser not answering for 25 s (since ...)": nothing while it answers. */
export function formatBrowserSilence(since: number | null | undefined, now: number = Date.now()): string[] {
  if (since === null || since === undefined) {
    return [];
  }
  const seconds = Math.max(0, Math.round((now - since) / 1000));
  return [`browser not answering for ${seconds} s (since ${new Date(since).toISOString()}): every call on this profile waits on it; if it does not come back, tabmux daemon stop closes it (logins stay)`];
}

export function formatStatus(status: DaemonStatus): string {
  const lines = [
    `profile ${status.profile}: ${status.state}${status.lastError ? ` (${status.lastError})` : ''}`,
    `daemon pid ${status.pid}, up since ${new Date(status.startedAt).toISOString()}, socket ${status.socketPath}`,
    ...(status.lifetime ? [formatLifetime(status.lifetime)] : []),
    ...(status.memory ? [formatMemory(status.memory)] : []),
    formatBrowser(status),
    ...formatBrowserSilence(status.browserSilentSince),
    formatWorkers(status.workers),
    ...formatDownloads(status.downloads),
    ...(status.activityLog?.error ? [`activity log: ${status.activityLog.error} (${status.activityLog.pending} entries waiting${status.activityLog.dropped > 0 ? `, ${status.activityLog.dropped} given up on` : ''})`] : []),
    '',
    `sessions (${status.sessions.length}):`,
    formatSessions(status.sessions),
    '',
    `queue (${status.queue.length}):`,
  ];
  if (status.queue.length === 0) {
    lines.push('empty');
  } else {
    const now = Date.now();
    const rows = [['CALL', 'SESSION', 'TOOL', 'STATE', 'WAITED', 'RUNNING']];
    for (const entry of status.queue) {
      const waited = (entry.startedAt ?? now) - entry.enqueuedAt;
      rows.push([
        String(entry.callId),
        entry.sessionId,
        entry.tool,
        entry.state,
        `${waited} ms`,
        entry.startedAt === null ? '-' : `${now - entry.startedAt} ms`,
      ]);
    }
    lines.push(table(rows));
  }
  return lines.join('\n');
}

/** The text content of a tool result, as `mcp call` prints it; non-text items are summarised. */
/**
 * A result as text: its text parts, and a line for each other part (an image) that says what it is and, when `saved`
 * names a file for its index, where it was written.
 */
export function resultText(result: ToolResult, saved: ReadonlyMap<number, string> = new Map()): string {
  const parts: string[] = [];
  for (const [index, item] of result.content.entries()) {
    if (item.type === 'text' && typeof item.text === 'string') {
      parts.push(item.text);
    } else {
      const mime = typeof item['mimeType'] === 'string' ? item['mimeType'] : item.type;
      const size = typeof item['data'] === 'string' ? ` (${Math.round((item['data'].length * 3) / 4)} bytes)` : '';
      const file = saved.get(index);
      parts.push(`[${mime}${size}${file === undefined ? '' : ` saved to ${file}`}]`);
    }
  }
  return parts.join('\n');
}
