import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { procStartTime } from '../process/processState.js';

/**
 * Whether the daemon ($1) still runs, for the watchdog. Where /proc exists, a zombie (state Z or X) is gone, and so
 * is a process that started at another time than $2 (clock ticks since boot, the 20th field after the name): a
 * daemon whose parent never reaps it stays a zombie forever, and its pid can be reused. Elsewhere, `kill -0`. Only
 * shell builtins run here, so checking once a second costs no process beyond `sleep`.
 */
export const WATCHDOG_DAEMON_RUNS = [
  'daemon_runs() {',
  '  [ -r "/proc/$1/stat" ] || { kill -0 "$1" 2>/dev/null; return; }',
  '  want=$2',
  '  read -r stat 2>/dev/null < "/proc/$1/stat" || return 1',
  '  set -- ${stat##*") "}',
  '  case "$1" in Z|X|x) return 1 ;; esac',
  '  [ -z "$want" ] || [ "${20}" = "$want" ]',
  '}',
].join('\n');

/**
 * Removes the temp folder Chrome ($1, on user-data-dir $2, host $3) kept its singleton socket in, once it is gone (a
 * zombie counts as gone: WATCHDOG_DAEMON_RUNS's check), as removeSingletonFolder does: only a clean quit removes it,
 * and the watchdog's SIGTERM or kill leaves it. Only while the profile's `SingletonLock` still names that Chrome on
 * this host, and the folder holds nothing but what Chrome puts there.
 */
export const WATCHDOG_TIDY = [
  'tidy() {',
  '  daemon_runs "$1" "" && return 0',
  '  [ "$(readlink "$2/SingletonLock" 2>/dev/null)" = "$3-$1" ] || return 0',
  '  sock=$(readlink "$2/SingletonSocket" 2>/dev/null) || return 0',
  '  folder=${sock%/SingletonSocket}',
  '  case "$folder" in /?*) ;; *) return 0 ;; esac',
  '  [ "$folder/SingletonSocket" = "$sock" ] && [ -d "$folder" ] || return 0',
  '  for entry in "$folder"/* "$folder"/.[!.]*; do',
  '    case "${entry##*/}" in SingletonSocket|SingletonCookie) ;; \'*\'|\'.[!.]*\') [ -e "$entry" ] && return 0 ;; *) return 0 ;; esac',
  '  done',
  '  rm -rf -- "$folder"',
  '}',
].join('\n');

/** The watchdog's `$0`, which its command line shows: how a successor tells a watchdog from a reused pid. */
export const WATCHDOG_NAME = 'tabmux-chrome-watchdog';

/**
 * Sends `Browser.close` to the browser endpoint at 127.0.0.1:argv[1], path argv[2]: a WebSocket handshake and one
 * text frame by hand, on node:net alone, so it runs on any Node (or Electron as Node) with no module to find. The
 * frame's mask key is zero, which leaves the payload as it is.
 */
export const BROWSER_CLOSE_SCRIPT = [
  "const [port, path] = process.argv.slice(1);",
  "const socket = require('node:net').connect(Number(port), '127.0.0.1');",
  "socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\\r\\nHost: 127.0.0.1:${port}\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Key: dGFibXV4LWNsb3NlLWtleQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n`));",
  "let sent = false;",
  "socket.on('data', (chunk) => {",
  "  if (sent) return;",
  "  if (!chunk.toString('latin1').startsWith('HTTP/1.1 101')) process.exit(1);",
  "  sent = true;",
  "  const payload = Buffer.from('{\"id\":1,\"method\":\"Browser.close\"}');",
  "  socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]));",
  "});",
  "socket.on('error', () => process.exit(sent ? 0 : 1));",
  "socket.on('close', () => process.exit(sent ? 0 : 1));",
  "setTimeout(() => process.exit(sent ? 0 : 1), 5000).unref();",
].join('\n');

export interface WatchdogOptions {
  chromePid: number | undefined;
  userDataDir: string;
  /** How long Chrome outlives its daemon, for a successor to adopt it. */
  orphanGraceMs: number;
  /** How long a closing Chrome gets before what is left of it is killed. */
  closeGraceMs: number;
}

/**
 * Chrome runs in its own process group, so it would outlive a daemon killed with SIGKILL. A tiny shell watchdog
 * (no Node while it waits, ~1 MB) notices the daemon is gone (see WATCHDOG_DAEMON_RUNS), then leaves Chrome running
 * for the grace period so that the next daemon for the profile can adopt it with every tab; that daemon stops this
 * watchdog and starts its own. When nobody does, Chrome is closed as a user quitting it would be, so its cookies reach
 * disk: `Browser.close` on the endpoint its DevToolsActivePort names (SIGTERM, which Chrome exits on without writing
 * its cookies, only when that cannot be sent), then the group is killed once the close grace is over, and the temp
 * folder a Chrome not quit cleanly leaves is removed (WATCHDOG_TIDY). The watchdog is
 * itself killed when Chrome exits first, so it never signals a recycled process group.
 */
export function startWatchdog(options: WatchdogOptions): ChildProcess | undefined {
  const { chromePid, userDataDir } = options;
  if (process.platform === 'win32' || chromePid === undefined) {
    return undefined;
  }
  const startTime = procStartTime(process.pid) ?? '';
  const seconds = (ms: number): string => String(Math.ceil(Math.max(0, ms) / 1000));
  const script = [
    WATCHDOG_DAEMON_RUNS,
    WATCHDOG_TIDY,
    'daemon=$1 chrome=$2 started=$3 grace=$4 closing=$5 dir=$6 host=$7',
    'while daemon_runs "$daemon" "$started"; do sleep 1; done',
    'waited=0; while [ "$waited" -lt "$grace" ] && kill -0 "$chrome" 2>/dev/null; do sleep 1; waited=$((waited + 1)); done',
    'kill -0 "$chrome" 2>/dev/null || { tidy "$chrome" "$dir" "$host"; exit 0; }',
    '{ read -r port; read -r path; } 2>/dev/null < "$dir/DevToolsActivePort"',
    '[ -n "$port" ] && ELECTRON_RUN_AS_NODE=1 "$TABMUX_WATCHDOG_NODE" -e "$TABMUX_WATCHDOG_CLOSE" "$port" "$path" >/dev/null 2>&1 || kill -TERM "$chrome" 2>/dev/null',
    'waited=0; while [ "$waited" -lt "$closing" ] && kill -0 "$chrome" 2>/dev/null; do sleep 1; waited=$((waited + 1)); done',
    'kill -9 "-$chrome" 2>/dev/null',
    // Killed or not, it is gone or going: a moment for the kernel to end it, then what it left is removed.
    'waited=0; while [ "$waited" -lt 5 ] && daemon_runs "$chrome" ""; do sleep 1; waited=$((waited + 1)); done',
    'tidy "$chrome" "$dir" "$host"',
  ].join('\n');
  const args = ['-c', script, WATCHDOG_NAME, String(process.pid), String(chromePid), startTime, seconds(options.orphanGraceMs), seconds(options.closeGraceMs), userDataDir, hostname()];
  const env = { ...process.env, TABMUX_WATCHDOG_NODE: process.execPath, TABMUX_WATCHDOG_CLOSE: BROWSER_CLOSE_SCRIPT };
  const watchdog = spawn('/bin/sh', args, { detached: true, stdio: 'ignore', env });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return watchdog;
}
