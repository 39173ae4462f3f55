/**
 * electron/core's folders from the ground up. A folder imports only folders listed before it (and shared/), so the
 * list reads as the daemon is built: small platform helpers first, the daemon that wires every part together last.
 * ESLint's zones (eslint.config.js) enforce the order; scripts/checkCoreLayout.mjs checks that every file of
 * electron/core lives in one of these folders.
 */
export const CORE_LAYERS = [
  ['platform', 'small platform helpers: the logger, paths, private files, back-off, the version'],
  ['process', 'processes and the files that outlive them: state of a pid, claim files, journals, idle exit'],
  ['profile', "a profile's configuration: the profile store, names, browser URLs and the settings read from them"],
  ['transport', 'the daemon socket: line framing, JSON-RPC connections, the client'],
  ['activity', 'the activity log: what each call did, redacted, on disk'],
  ['browser', "the profile's browser: launching or reaching Chrome, its tabs, downloads and the URL policy"],
  ['upstream', 'chrome-devtools-mcp workers: their process, protocol and replies'],
  ['lifecycle', "starting, finding and stopping a profile's daemon process from outside it"],
  ['bridge', 'tabmux mcp serve: an MCP server on stdio in front of a daemon'],
  ['pictures', 'live pictures of tabs and takeover input'],
  ['router', 'sessions, the fair queue, workers, token rewriting and policies'],
  ['doctor', "tabmux doctor's checks"],
  ['supervisor', 'the tray and dashboard side: watching and steering every profile'],
  ['dashboard', 'the local web dashboard server'],
  ['daemon', 'the daemon: every part above put together, and its control service'],
];
