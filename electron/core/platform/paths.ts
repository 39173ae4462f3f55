import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where tabmux keeps its files. `TABMUX_HOME` puts everything under one folder (tests use it); otherwise the
 * platform's conventions apply (XDG on Linux, ~/Library on macOS, %APPDATA%/%LOCALAPPDATA% on Windows).
 */
export interface TabmuxPaths {
  configDir: string;
  dataDir: string;
  runtimeDir: string;
}

type Env = Readonly<Record<string, string | undefined>>;

export function resolvePaths(env: Env = process.env, platform: NodeJS.Platform = process.platform): TabmuxPaths {
  const home = env['TABMUX_HOME'];
  if (home) {
    return {
      configDir: join(home, 'config'),
      dataDir: join(home, 'data'),
      runtimeDir: shortRuntimeDir(join(home, 'run')),
    };
  }
  const user = homedir();
  if (platform === 'darwin') {
    const base = join(user, 'Library', 'Application Support', 'tabmux');
    return { configDir: base, dataDir: base, runtimeDir: shortRuntimeDir(join(base, 'run')) };
  }
  if (platform === 'win32') {
    const roaming = env['APPDATA'] ?? join(user, 'AppData', 'Roaming');
    const local = env['LOCALAPPDATA'] ?? join(user, 'AppData', 'Local');
    return { configDir: join(roaming, 'tabmux'), dataDir: join(local, 'tabmux'), runtimeDir: join(local, 'tabmux', 'run') };
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return {
    configDir: join(env['XDG_CONFIG_HOME'] ?? join(user, '.config'), 'tabmux'),
    dataDir: join(env['XDG_DATA_HOME'] ?? join(user, '.local', 'share'), 'tabmux'),
    runtimeDir: env['XDG_RUNTIME_DIR'] ? join(env['XDG_RUNTIME_DIR'], 'tabmux') : join(tmpdir(), `tabmux-${uid}`),
  };
}

/** Unix socket paths are limited to ~104 bytes; fall back to a hashed folder in the temp dir when a path is too long. */
const MAX_RUNTIME_DIR_LENGTH = 70;

function shortRuntimeDir(dir: string): string {
  if (dir.length <= MAX_RUNTIME_DIR_LENGTH || process.platform === 'win32') {
    return dir;
  }
  return join(tmpdir(), `tabmux-${shortDigest(dir)}`);
}

/**
 * The first 12 hex digits of a SHA-256, for names derived from a long path. node:crypto is loaded on this first use:
 * most commands never need it, and the agent commands load as little as they can.
 */
function shortDigest(text: string): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex').slice(0, 12);
}

export function profileDataDir(paths: TabmuxPaths, profile: string): string {
  return join(paths.dataDir, 'profiles', profile);
}

export function profileUserDataDir(paths: TabmuxPaths, profile: string): string {
  return join(profileDataDir(paths, profile), 'chrome');
}

/** Folder that upstream's file-writing tools (screenshots, traces, heap snapshots) are confined to. */
export function profileFilesDir(paths: TabmuxPaths, profile: string): string {
  return join(profileDataDir(paths, profile), 'files');
}

/** Parent of each upstream worker's own temp folder (its TMPDIR), so no session's temp files are in the system's. */
export function profileTempDir(paths: TabmuxPaths, profile: string): string {
  return join(profileDataDir(paths, profile), 'tmp');
}

/** Where a launched Chrome's downloads from tabs nobody owns are kept (a session's go to its own folder). */
export function profileDownloadsDir(paths: TabmuxPaths, profile: string): string {
  return join(profileDataDir(paths, profile), 'downloads');
}

/** Where a launched Chrome writes every download first, each under its guid, until tabmux moves it or deletes it. */
export function profileDownloadStagingDir(paths: TabmuxPaths, profile: string): string {
  return join(profileDataDir(paths, profile), 'tmp', 'downloads');
}

/** The profile's activity log: what each agent session did, as JSON lines (see docs/activity-log.md). */
export function profileActivityDir(paths: TabmuxPaths, profile: string): string {
  return join(profileDataDir(paths, profile), 'activity');
}

export function profileLogFile(paths: TabmuxPaths, profile: string): string {
  return join(profileDataDir(paths, profile), 'daemon.log');
}

export function socketPath(paths: TabmuxPaths, profile: string): string {
  if (process.platform === 'win32') {
    const digest = shortDigest(paths.runtimeDir);
    return `\\\\.\\pipe\\tabmux-${digest}-${profile}`;
  }
  return join(paths.runtimeDir, `${profile}.sock`);
}

export function pidFilePath(paths: TabmuxPaths, profile: string): string {
  return join(paths.runtimeDir, `${profile}.pid`);
}

/** Where a stop asked of a daemon that answers nothing is noted, with its pid (see lifecycle/stopRequest.ts). */
export function stopRequestPath(paths: TabmuxPaths, profile: string): string {
  return join(paths.runtimeDir, `${profile}.stopping`);
}

export function profilesConfigFile(paths: TabmuxPaths): string {
  return join(paths.configDir, 'profiles.json');
}
