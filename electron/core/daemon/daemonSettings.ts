import { DEFAULT_RETENTION } from '../activity/RetentionSettings.js';
import type { DownloadSettings } from '../browser/BrowserDownloads.js';
import type { ProfileConfig } from '../profile/ProfileStore.js';
import { nonNegativeInt, positiveInt, type Env } from '../profile/settings.js';
import { DEFAULT_SETTINGS, type RouterSettings } from '../router/Router.js';

/*
 * The daemon's parts' settings from a profile's config and the environment: the parts' own types and defaults live with
 * the parts, and only the daemon, which builds them all, puts them together here.
 */

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
    stuckPageMs: nonNegativeInt(env['TABMUX_STUCK_PAGE_MS']) ?? config.stuckPageMs ?? DEFAULT_SETTINGS.stuckPageMs,
    workerMemoryMb: nonNegativeInt(env['TABMUX_WORKER_MEMORY_MB']) ?? config.workerMemoryMb ?? DEFAULT_SETTINGS.workerMemoryMb,
    sessionFilesMaxBytes: nonNegativeInt(env['TABMUX_SESSION_FILES_MAX_BYTES']) ?? config.sessionFilesMaxBytes ?? DEFAULT_SETTINGS.sessionFilesMaxBytes,
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
/** The most one session's downloads may keep by default: 250 MiB, in at most 100 files. */
export const DEFAULT_DOWNLOAD_SESSION_MAX_BYTES = 250 * 1024 * 1024;
export const DEFAULT_DOWNLOAD_SESSION_MAX_FILES = 100;

/**
 * What a profile does with downloads: `TABMUX_DOWNLOADS=session|off` over the profile's `downloads` over `session`;
 * the size cap from `TABMUX_DOWNLOAD_MAX_BYTES` over `downloadMaxBytes` over 25 MiB; what one session may keep from
 * `TABMUX_DOWNLOAD_SESSION_MAX_BYTES` / `_FILES` over `downloadSessionMaxBytes` / `Files` over 250 MiB and 100 files.
 */
export function downloadSettings(config: ProfileConfig, env: Env = process.env): DownloadSettings {
  const fromEnv = env['TABMUX_DOWNLOADS'];
  return {
    mode: fromEnv === 'off' || fromEnv === 'session' ? fromEnv : (config.downloads ?? 'session'),
    maxBytes: positiveInt(env['TABMUX_DOWNLOAD_MAX_BYTES']) ?? config.downloadMaxBytes ?? DEFAULT_DOWNLOAD_MAX_BYTES,
    sessionMaxBytes: positiveInt(env['TABMUX_DOWNLOAD_SESSION_MAX_BYTES']) ?? config.downloadSessionMaxBytes ?? DEFAULT_DOWNLOAD_SESSION_MAX_BYTES,
    sessionMaxFiles: positiveInt(env['TABMUX_DOWNLOAD_SESSION_MAX_FILES']) ?? config.downloadSessionMaxFiles ?? DEFAULT_DOWNLOAD_SESSION_MAX_FILES,
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
