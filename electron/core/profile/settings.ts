import type { ProfileConfig } from './ProfileStore.js';

/** The environment settings are read from. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A whole number above zero written as text, or undefined for anything else (unset, empty, 0, -1, 1.5, abc). */
export function positiveInt(value: string | undefined): number | undefined {
  if (value === undefined || value === '') {
    return undefined;
  }
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : undefined;
}

/** A whole number of zero or more written as text, or undefined for anything else (unset, empty, -1, 1.5, abc). */
export function nonNegativeInt(value: string | undefined): number | undefined {
  if (value === undefined || value === '') {
    return undefined;
  }
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed >= 0 ? parsed : undefined;
}

/** Default for how long a launched Chrome outlives a daemon that died: long enough for a restart after a crash. */
export const DEFAULT_ORPHAN_GRACE_MS = 90_000;

/**
 * How long a launched Chrome outlives a daemon that died without closing it, so the next daemon adopts it with
 * every tab: `TABMUX_ORPHAN_GRACE_MS` over the profile's `orphanGraceMs` over the default; 0 closes it at once.
 */
export function orphanGraceMs(config: ProfileConfig, env: Env = process.env): number {
  return nonNegativeInt(env['TABMUX_ORPHAN_GRACE_MS']) ?? config.orphanGraceMs ?? DEFAULT_ORPHAN_GRACE_MS;
}

/** Default for how long a daemon started on demand runs with no session and no client: 15 minutes. */
export const DEFAULT_IDLE_EXIT_MS = 15 * 60_000;

/**
 * How long a daemon started on demand (by `mcp serve`, `mcp call --new-session`, ...) runs with no session and no
 * client before it exits with its Chrome: `TABMUX_IDLE_EXIT_MS` over the profile's `idleExitMs` over 15 minutes; 0
 * keeps it until it is stopped, as a daemon started by `daemon start` or the tray is kept.
 */
export function idleExitMs(config: ProfileConfig, env: Env = process.env): number {
  return nonNegativeInt(env['TABMUX_IDLE_EXIT_MS']) ?? config.idleExitMs ?? DEFAULT_IDLE_EXIT_MS;
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
