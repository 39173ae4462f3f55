import { DEFAULT_SETTINGS, type RouterSettings } from './router/Router.js';
import type { ProfileConfig } from './ProfileStore.js';
import { DEFAULT_RETENTION } from './activity/ActivityLogStore.js';
import type { DownloadSettings } from './browser/BrowserDownloads.js';

type Env = Readonly<Record<string, string | undefined>>;

function positiveInt(value: string | undefined): number | undefined {
  if (value === undefined || value === '') {
    return undefined;
  }
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : undefined;
}

/** Default for how long a launched Chrome outlives a daemon that died: long enough for a restart after a crash. */
export const DEFAULT_ORPHAN_GRACE_MS = 90_000;

/**
 * How long a launched Chrome outlives a daemon that died without closing it, so the next daemon adopts it with
 * every tab: `TABMUX_ORPHAN_GRACE_MS` over the profile's `orphanGraceMs` over the default; 0 closes it at once.
 */
export function orphanGraceMs(config: ProfileConfig, env: Env = process.env): number {
  const fromEnv = env['TABMUX_ORPHAN_GRACE_MS'];
  const parsed = fromEnv === undefined || fromEnv === '' ? undefined : Number(fromEnv);
  const valid = parsed !== undefined && Number.isInteger(parsed) && parsed >= 0 ? parsed : undefined;
  return valid ?? config.orphanGraceMs ?? DEFAULT_ORPHAN_GRACE_MS;
}

/** Default for how long a daemon started on demand runs with no session and no client: 15 minutes. */
export const DEFAULT_IDLE_EXIT_MS = 15 * 60_000;

/**
 * How long a daemon started on demand (by `mcp serve`, `mcp call --new-session`, ...) runs with no session and no
 * client before it exits with its Chrome: `TABMUX_IDLE_EXIT_MS` over the profile's `idleExitMs` over 15 minutes; 0
 * keeps it until it is stopped, as a daemon started by `daemon start` or the tray is kept.
 */
export function idleExitMs(config: ProfileConfig, env: Env = process.env): number {
  const fromEnv = env['TABMUX_IDLE_EXIT_MS'];
  const parsed = fromEnv === undefined || fromEnv === '' ? undefined : Number(fromEnv);
  const valid = parsed !== undefined && Number.isInteger(parsed) && parsed >= 0 ? parsed : undefined;
  return valid ?? config.idleExitMs ?? DEFAULT_IDLE_EXIT_MS;
}

/** Router settings: environment over profile config over defaults. */
export function routerSettings(config: ProfileConfig, env: Env = process.env): RouterSettings {
  return {
    workers: positiveInt(env['TABMUX_WORKERS']) ?? config.workers ?? DEFAULT_SETTINGS.workers,
    isolation: config.isolation ?? DEFAULT_SETTINGS.isolation,
    sessionTtlMs: positiveInt(env['TABMUX_SESSION_TTL_MS']) ?? config.sessionTtlMs ?? DEFAULT_SETTINGS.sessionTtlMs,
    reapIntervalMs: positiveInt(env['TABMUX_REAP_INTERVAL_MS']) ?? config.reapIntervalMs ?? DEFAULT_SETTINGS.reapIntervalMs,
    callTimeoutMs: positiveInt(env['TABMUX_CALL_TIMEOUT_MS']) ?? config.callTimeoutMs ?? DEFAULT_SETTINGS.callTimeoutMs,
    workerIdleMs: positiveInt(env['TABMUX_WORKER_IDLE_MS']) ?? config.workerIdleMs ?? DEFAULT_SETTINGS.workerIdleMs,
    toolTimeoutsMs: { ...DEFAULT_SETTINGS.toolTimeoutsMs, ...config.toolTimeoutsMs, ...toolTimeouts(env['TABMUX_TOOL_TIMEOUTS']) },
    questionTimeoutMs: positiveInt(env['TABMUX_QUESTION_TIMEOUT_MS']) ?? config.questionTimeoutMs ?? DEFAULT_SETTINGS.questionTimeoutMs,
    confirmTimeoutMs: positiveInt(env['TABMUX_CONFIRM_TIMEOUT_MS']) ?? config.confirmTimeoutMs ?? DEFAULT_SETTINGS.confirmTimeoutMs,
  };
}

/** `TABMUX_TOOL_TIMEOUTS="wait_for=60000,lighthouse_audit=300000"`: per-tool call timeouts in ms. */
function toolTimeouts(value: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pair of (value ?? '').split(',')) {
    const [tool, ms] = pair.split('=');
    const parsed = positiveInt(ms?.trim());
    if (tool?.trim() && parsed !== undefined) {
      out[tool.trim()] = parsed;
    }
  }
  return out;
}

/** The largest file one download may write by default: 25 MiB. */
export const DEFAULT_DOWNLOAD_MAX_BYTES = 25 * 1024 * 1024;

/**
 * What a profile does with downloads: `TABMUX_DOWNLOADS=session|off` over the profile's `downloads` over `session`;
 * the size cap from `TABMUX_DOWNLOAD_MAX_BYTES` over `downloadMaxBytes` over 25 MiB.
 */
export function downloadSettings(config: ProfileConfig, env: Env = process.env): DownloadSettings {
  const fromEnv = env['TABMUX_DOWNLOADS'];
  return {
    mode: fromEnv === 'off' || fromEnv === 'session' ? fromEnv : (config.downloads ?? 'session'),
    maxBytes: positiveInt(env['TABMUX_DOWNLOAD_MAX_BYTES']) ?? config.downloadMaxBytes ?? DEFAULT_DOWNLOAD_MAX_BYTES,
  };
}

export interface ActivityLogSettings {
  enabled: boolean;
  keepValues: boolean;
  maxBytes: number;
  maxAgeMs: number;
}

/** The activity log's settings: `TABMUX_ACTIVITY_LOG=0` turns it off, else the profile's settings over defaults. */
export function activityLogSettings(config: ProfileConfig, env: Env = process.env): ActivityLogSettings {
  const fromEnv = env['TABMUX_ACTIVITY_LOG'];
  return {
    enabled: fromEnv === '0' || fromEnv === 'false' ? false : config.activityLog !== false,
    keepValues: config.logValues === true,
    maxBytes: positiveInt(env['TABMUX_LOG_MAX_BYTES']) ?? config.logMaxBytes ?? DEFAULT_RETENTION.maxBytes,
    maxAgeMs: positiveInt(env['TABMUX_LOG_MAX_AGE_MS']) ?? config.logMaxAgeMs ?? DEFAULT_RETENTION.maxAgeMs,
  };
}

/** Headless when asked (flag, TABMUX_HEADLESS=1, profile config), or when a Linux machine has no display to show Chrome on. */
export function resolveHeadless(override: boolean | undefined, config: ProfileConfig, env: Env = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (override !== undefined) {
    return override;
  }
  const fromEnv = env['TABMUX_HEADLESS'];
  if (fromEnv === '1' || fromEnv === 'true') {
    return true;
  }
  if (fromEnv === '0' || fromEnv === 'false') {
    return false;
  }
  if (config.headless !== undefined) {
    return config.headless;
  }
  return platform === 'linux' && !env['DISPLAY'] && !env['WAYLAND_DISPLAY'];
}

/** Extra Chrome flags: the profile's, then TABMUX_CHROME_ARGS (space-separated). */
export function chromeExtraArgs(config: ProfileConfig, env: Env = process.env): string[] {
  const fromEnv = (env['TABMUX_CHROME_ARGS'] ?? '').split(/\s+/).filter(Boolean);
  return [...(config.chromeArgs ?? []), ...fromEnv];
}
