import type { DaemonStartedBy } from '../../shared/model.js';
import type { StartOptions } from '../core/lifecycle/daemonProcess.js';
import type { TabmuxPaths } from '../core/platform/paths.js';

/** `tabmux daemon run`, its arguments parsed. */
export interface DaemonRunRequest {
  paths: TabmuxPaths;
  profile: string;
  chrome: string | undefined;
  headless: boolean | undefined;
  /** Who started the daemon (`--started-by`): one started on demand exits when idle. */
  startedBy: DaemonStartedBy | undefined;
}

/** `tabmux dashboard`, its arguments parsed; the link goes to `stdout` as the first line. */
export interface DashboardRequest {
  paths: TabmuxPaths;
  port: number;
  /** --json: the link goes out as `{"url": ...}`, one line, so a script reads it the way it reads every other command. */
  json: boolean;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** `tabmux mcp serve`, its arguments parsed. */
export interface BridgeRequest {
  paths: TabmuxPaths;
  /** One profile, or several behind one server (each tool then takes a browser argument naming one). */
  profiles: readonly string[];
  session: string | undefined;
  label: string | undefined;
  sessionArg: boolean;
  start: StartOptions;
}

/**
 * The long-running programs behind three commands. The CLI only parses their arguments and hands them over;
 * `electron/bin` implements them, because wiring parts together and owning the process (signals, exit) is its job.
 * Each resolves with the command's exit code.
 */
export interface EntryPoints {
  runDaemon: (request: DaemonRunRequest) => Promise<number>;
  runDashboard: (request: DashboardRequest) => Promise<number>;
  runBridge: (request: BridgeRequest) => Promise<number>;
}
