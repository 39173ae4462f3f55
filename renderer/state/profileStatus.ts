import { EXTERNAL_CONNECTION_LABELS, externalConnectionState, type ExternalConnectionState } from '../../shared/externalConnection.js';
import type { DaemonLifetime, ExternalBrowserInfo, ProfileState } from '../../shared/model.js';
import type { ProfileEntry } from './ServerState.js';

/** The badge colours: one per meaning, shared by daemon states and browser connections. */
export type BadgeTone = 'ok' | 'progress' | 'idle' | 'pending' | 'warn' | 'error';

export interface ProfileBadge {
  /** A launched profile's lifecycle state, or an external profile's connection state (`data-state`). */
  state: ProfileState | ExternalConnectionState | 'unanswered' | 'browser-silent';
  label: string;
  tone: BadgeTone;
  /** The tooltip: what the state means, or the error behind it. */
  title: string;
}

const LAUNCHED: Record<ProfileState, { label: string; tone: BadgeTone; title: string }> = {
  stopped: { label: 'stopped', tone: 'idle', title: 'The daemon is not running; agents that use this profile start it' },
  starting: { label: 'starting', tone: 'progress', title: 'Starting Chrome and its workers' },
  ready: { label: 'ready', tone: 'ok', title: 'The daemon runs its Chrome and serves agents' },
  crashed: { label: 'crashed', tone: 'error', title: 'The daemon stopped unexpectedly' },
  restarting: { label: 'restarting', tone: 'progress', title: 'Restarting Chrome or the daemon' },
  stopping: { label: 'stopping', tone: 'progress', title: 'Stopping the daemon and its Chrome' },
};

const EXTERNAL: Record<ExternalConnectionState, { tone: BadgeTone; title: string }> = {
  disconnected: { tone: 'idle', title: 'Not connected; your browser is left as it is' },
  connecting: { tone: 'progress', title: 'Connecting to your browser' },
  pending: { tone: 'pending', title: 'Connects when an agent first needs the browser' },
  connected: { tone: 'ok', title: 'Connected to your browser' },
  lost: { tone: 'warn', title: 'The browser went away or does not answer; retrying' },
  disconnecting: { tone: 'progress', title: 'Disconnecting; your browser keeps running' },
  failed: { tone: 'error', title: 'Could not connect' },
};

/** The browser report of a running daemon of an external profile; null otherwise. */
function externalBrowser(entry: ProfileEntry): ExternalBrowserInfo | null {
  const browser = entry.daemon?.browser;
  return browser?.kind === 'external' ? browser : null;
}

/** What a profile's badge says: the daemon's state, or for an external profile the connection to the browser. */
export function profileBadge(entry: ProfileEntry): ProfileBadge {
  if (entry.unanswered) {
    return { state: 'unanswered', label: 'not answering', tone: 'error', title: entry.lastError ?? 'The daemon does not answer: its process is stopped or stuck' };
  }
  // The daemon answers, but the browser it drives does not: every call of the profile waits on it.
  const silentSince = entry.daemon?.browserSilentSince;
  if (entry.state === 'ready' && typeof silentSince === 'number') {
    const since = new Date(silentSince).toLocaleTimeString();
    return { state: 'browser-silent', label: 'browser not answering', tone: 'error', title: `The browser has not answered since ${since}: every call on this profile waits on it` };
  }
  if (entry.kind === 'launched') {
    const launched = LAUNCHED[entry.state];
    return { state: entry.state, ...launched, title: entry.lastError ?? launched.title };
  }
  const browser = externalBrowser(entry);
  const state = externalConnectionState(entry.state, browser);
  const external = EXTERNAL[state];
  const error = state === 'lost' ? (browser?.lastError ?? entry.lastError) : state === 'failed' ? entry.lastError : null;
  return { state, label: EXTERNAL_CONNECTION_LABELS[state], tone: external.tone, title: error ?? external.title };
}

/** The words of a profile's lifecycle controls: Start and Stop for a launched Chrome, Connect and Disconnect for a browser the user runs. */
export interface ProfileVerbs {
  start: string;
  starting: string;
  startTitle: string;
  stop: string;
  stopping: string;
  stopConfirm: string;
  stopTitle: string;
  restart: string;
  restarting: string;
  restartConfirm: string;
  restartTitle: string;
}

export function profileVerbs(entry: Pick<ProfileEntry, 'kind' | 'endpoint'>): ProfileVerbs {
  if (entry.kind === 'external') {
    return {
      start: 'Connect',
      starting: 'Connecting',
      startTitle: `Start this profile's daemon and connect to the browser at ${entry.endpoint ?? 'its URL'}`,
      stop: 'Disconnect',
      stopping: 'Disconnecting',
      stopConfirm: 'Disconnect?',
      stopTitle: "Stop this profile's daemon; your browser and its tabs stay open",
      restart: 'Reconnect',
      restarting: 'Reconnecting',
      restartConfirm: 'Reconnect?',
      restartTitle: "Disconnect and connect again; agents' sessions end, your browser stays open",
    };
  }
  return {
    start: 'Start',
    starting: 'Starting',
    startTitle: 'Start the daemon with its own Chrome',
    stop: 'Stop',
    stopping: 'Stopping',
    stopConfirm: 'Stop?',
    stopTitle: 'Stop the daemon, its Chrome and workers',
    restart: 'Restart',
    restarting: 'Restarting',
    restartConfirm: 'Restart?',
    restartTitle: 'Restart the daemon; agents reconnect and their sessions end',
  };
}

/** An external profile's connection facts while its daemon runs: attempts and the next retry, for the header. */
export interface ExternalConnectionFacts {
  endpoint: string;
  attempts: number;
  lastError: string | null;
  /** Milliseconds until the next background attempt (0 once due); null when none is scheduled. */
  retryInMs: number | null;
}

export function externalConnectionFacts(entry: ProfileEntry, now: number): ExternalConnectionFacts | null {
  if (entry.kind !== 'external') {
    return null;
  }
  const browser = externalBrowser(entry);
  return {
    endpoint: browser?.endpoint ?? entry.endpoint ?? '',
    attempts: browser?.attempts ?? 0,
    lastError: browser?.lastError ?? (entry.state === 'crashed' ? entry.lastError : null),
    retryInMs: browser?.nextRetryAt === null || browser?.nextRetryAt === undefined ? null : Math.max(0, browser.nextRetryAt - now),
  };
}

/** How long a daemon runs, as a fact: until it is stopped, or, started on demand, until it has been idle a while. */
export function lifetimeFact(lifetime: DaemonLifetime | undefined): { value: string; title: string } | null {
  if (!lifetime) {
    return null;
  }
  if (lifetime.idleExitMs === null) {
    return { value: 'when stopped', title: 'It runs until it is stopped: tabmux daemon stop, or Stop here.' };
  }
  return {
    value: `after ${roundDuration(lifetime.idleExitMs)} idle`,
    title: 'Started on demand by an agent or a command, it stops with its Chrome once it has had no session and no agent connected this long. tabmux daemon start keeps it until it is stopped.',
  };
}

/** A setting's duration as people write it: `15 min`, `2 h`, `90 s`. */
function roundDuration(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) {
    return `${ms / 3_600_000} h`;
  }
  if (ms >= 60_000 && ms % 60_000 === 0) {
    return `${ms / 60_000} min`;
  }
  return `${Math.round(ms / 1000)} s`;
}
