import { TabmuxError } from '../../shared/errors.js';
import { isRecord } from '../../shared/isRecord.js';
import type { ProfileState } from '../../shared/model.js';
import type { DaemonCall } from '../../shared/supervisor.js';
import type { Host } from '../host/Host.js';
import { actionKey } from './actionKey.js';
import type { TabmuxState, TabmuxStore } from './createTabmuxStore.js';
import { waitForState } from './waitForState.js';
import { loadingTimeline, NO_HISTORY_FILTER, TIMELINE_LIMIT, timelineLoaded, type Timeline } from './Timeline.js';
import { activityQueryResultSchema } from '../../shared/activity.js';
import type { HumanRequest } from '../../shared/model.js';
import type { PolicyInput, PolicyRule } from '../../shared/policy.js';
import { controlResultSchema } from '../../shared/protocol.js';

/** A profile on a browser the user runs, as the add form collects it. */
export interface ExternalProfileInput {
  name: string;
  browserUrl: string;
  isolation: 'tab' | 'window';
}

export interface TabmuxActions {
  /** Resolves with the server's message when the profile was refused (the form shows it), else null. */
  addExternalProfile: (input: ExternalProfileInput) => Promise<string | null>;
  startProfile: (profile: string) => Promise<void>;
  stopProfile: (profile: string) => Promise<void>;
  restartProfile: (profile: string) => Promise<void>;
  createSession: (profile: string, label: string) => Promise<void>;
  closeSession: (profile: string, session: string) => Promise<void>;
  pauseSession: (profile: string, session: string) => Promise<void>;
  resumeSession: (profile: string, session: string) => Promise<void>;
  bringToFront: (profile: string, session: string, pageId: number) => Promise<void>;
  releasePage: (profile: string, session: string, pageId: number) => Promise<void>;
  attachPage: (profile: string, session: string, pageId: number) => Promise<void>;
  openTab: (profile: string, url: string) => Promise<void>;
  cancelCall: (profile: string, callId: number) => Promise<void>;
  /**
   * Shows the profile's history (its activity log, up to TIMELINE_LIMIT entries; new calls join it live), filtered to
   * one session when `session` is given. The log is read again on every open.
   */
  openHistory: (profile: string, session?: string | null) => Promise<void>;
  /** A picture the activity log keeps (base64 JPEG), or null when it is gone or was never taken. */
  logPicture: (profile: string, name: string) => Promise<string | null>;
  /** Back to the profile's sessions, tabs and queue. */
  closeHistory: () => void;
  /** What waits for a person on the profile now; empty when it cannot be read. */
  loadRequests: (profile: string) => Promise<HumanRequest[]>;
  /** Answers an agent's question; settled once its session no longer waits on it. */
  answerRequest: (profile: string, id: string, text: string) => Promise<void>;
  /** Approves or denies a call a confirm policy holds; settled once its session no longer waits on it. */
  decideRequest: (profile: string, id: string, approve: boolean, reason?: string) => Promise<void>;
  /** The profile's policy rules as its daemon applies them; empty when they cannot be read. */
  loadPolicies: (profile: string) => Promise<PolicyRule[]>;
  /** Adds a rule; resolves with the server's message when it was refused (the form shows it), else null. */
  addPolicy: (profile: string, input: PolicyInput) => Promise<string | null>;
  removePolicy: (profile: string, id: string) => Promise<void>;
}

export interface ActionOptions {
  /** How long to wait for the confirming event before clearing the pending state anyway. */
  confirmTimeoutMs?: number;
  /** Starting a profile launches Chrome and its workers, which can take much longer. */
  lifecycleTimeoutMs?: number;
}

type Confirm = ((state: TabmuxState) => boolean) | null;

/** Whether a session of the profile still waits on the request. */
function waitsOn(state: TabmuxState, profile: string, id: string): boolean {
  return Object.values(state.sessions[profile] ?? {}).some((session) => session.waitingForHuman?.requestId === id);
}

/** A profile that vanished counts as settled too: there is nothing left to wait for. */
function isOneOf(state: ProfileState | undefined, settled: readonly ProfileState[]): boolean {
  return state === undefined || settled.includes(state);
}

/**
 * Every action calls the host, then waits for the pushed event that shows the change, so the UI never shows a
 * state the server has not confirmed. Failures become toasts with the server's message.
 */
export function createActions(host: Host, store: TabmuxStore, options: ActionOptions = {}): TabmuxActions {
  let historyOpens = 0;
  const confirmTimeoutMs = options.confirmTimeoutMs ?? 10_000;
  const lifecycleTimeoutMs = options.lifecycleTimeoutMs ?? 90_000;

  const run = async (key: string, timeoutMs: number, work: () => Promise<Confirm>): Promise<void> => {
    const ui = store.getState();
    if (Object.hasOwn(ui.pending, key)) {
      return;
    }
    ui.setPending(key, true);
    try {
      const confirm = await work();
      if (confirm) {
        await waitForState(store, confirm, timeoutMs);
      }
    } catch (error) {
      store.getState().pushToast('error', TabmuxError.from(error).message);
    } finally {
      store.getState().setPending(key, false);
    }
  };

  const daemon = (call: DaemonCall): Promise<unknown> => host.call('supervisor/daemon', call);

  const session = (state: TabmuxState, profile: string, id: string) => state.sessions[profile]?.[id];
  const profileState = (state: TabmuxState, profile: string) => state.profiles[profile]?.state;
  const tab = (state: TabmuxState, profile: string, worker: number, pageId: number) =>
    state.tabs[profile]?.find((candidate) => candidate.worker === worker && candidate.pageId === pageId);

  /**
   * Starting is over once the profile runs, or failed; for a browser the user runs, running means connected too
   * (Connect connects at once, and a browser that is not there makes it fail).
   */
  const startSettled = (state: TabmuxState, profile: string): boolean => {
    const entry = state.profiles[profile];
    if (entry === undefined || entry.state === 'crashed' || entry.state === 'stopped') {
      return true;
    }
    if (entry.state !== 'ready') {
      return false;
    }
    const browser = entry.daemon?.browser;
    return entry.kind !== 'external' || (browser?.kind === 'external' && browser.state === 'connected');
  };

  const reportCrash = (profile: string): void => {
    const entry = store.getState().profiles[profile];
    if (entry?.state === 'crashed') {
      const what = entry.kind === 'external' ? `Could not connect ${profile}` : `Profile ${profile} crashed`;
      store.getState().pushToast('error', `${what}: ${entry.lastError ?? 'no reason given'}`);
    }
  };

  return {
    addExternalProfile: async (input) => {
      const key = actionKey('profiles', 'addExternal');
      if (Object.hasOwn(store.getState().pending, key)) {
        return null;
      }
      store.getState().setPending(key, true);
      try {
        // `tab` is the default and stays out of the config, as with `profile add` without --isolation.
        const params = { name: input.name.trim(), browserUrl: input.browserUrl.trim(), ...(input.isolation === 'window' ? { isolation: input.isolation } : {}) };
        const added = await host.call('supervisor/profile.addExternal', params);
        await waitForState(store, (state) => Object.hasOwn(state.profiles, added.name), confirmTimeoutMs);
        store.getState().selectProfile(added.name);
        return null;
      } catch (error) {
        return TabmuxError.from(error).message;
      } finally {
        store.getState().setPending(key, false);
      }
    },


    startProfile: (profile) =>
      run(actionKey('profile', profile, 'start'), lifecycleTimeoutMs, async () => {
        await host.call('supervisor/profile.start', { profile });
        await waitForState(store, (state) => startSettled(state, profile), lifecycleTimeoutMs);
        reportCrash(profile);
        return null;
      }),

    stopProfile: (profile) =>
      run(actionKey('profile', profile, 'stop'), lifecycleTimeoutMs, async () => {
        await host.call('supervisor/profile.stop', { profile });
        // A daemon that did not answer may read stopped already: it is stopped once nothing holds the profile.
        return (state) => isOneOf(profileState(state, profile), ['stopped', 'crashed']) && state.profiles[profile]?.unanswered !== true;
      }),

    restartProfile: (profile) =>
      run(actionKey('profile', profile, 'restart'), lifecycleTimeoutMs, async () => {
        const before = store.getState().profiles[profile]?.daemon?.pid ?? null;
        await host.call('supervisor/profile.restart', { profile });
        // "ready" alone may be the old daemon's state; a new daemon has a new pid.
        await waitForState(
          store,
          (state) => {
            const entry = state.profiles[profile];
            return !entry || entry.state === 'crashed' || (entry.state === 'ready' && entry.daemon !== null && entry.daemon.pid !== before);
          },
          lifecycleTimeoutMs,
        );
        reportCrash(profile);
        return null;
      }),

    createSession: (profile, label) =>
      run(actionKey('profile', profile, 'session.create'), confirmTimeoutMs, async () => {
        const params = label.trim() ? { label: label.trim() } : {};
        const created = await daemon({ profile, method: 'tabmux/session.create', params });
        const id = isRecord(created) && typeof created['id'] === 'string' ? created['id'] : null;
        return id ? (state) => session(state, profile, id) !== undefined : null;
      }),

    closeSession: (profile, id) =>
      run(actionKey('session', id, 'close'), confirmTimeoutMs, async () => {
        await daemon({ profile, method: 'tabmux/session.close', params: { session: id } });
        return (state) => session(state, profile, id) === undefined;
      }),

    pauseSession: (profile, id) =>
      run(actionKey('session', id, 'pause'), confirmTimeoutMs, async () => {
        await daemon({ profile, method: 'tabmux/session.pause', params: { session: id } });
        return (state) => session(state, profile, id)?.paused !== false;
      }),

    resumeSession: (profile, id) =>
      run(actionKey('session', id, 'resume'), confirmTimeoutMs, async () => {
        await daemon({ profile, method: 'tabmux/session.resume', params: { session: id } });
        return (state) => session(state, profile, id)?.paused !== true;
      }),

    bringToFront: (profile, id, pageId) =>
      run(actionKey('session', id, 'front'), confirmTimeoutMs, async () => {
        await daemon({ profile, method: 'tabmux/session.select', params: { session: id, pageId, bringToFront: true } });
        return (state) => {
          const current = session(state, profile, id);
          return !current || current.currentPageId === pageId;
        };
      }),

    releasePage: (profile, id, pageId) =>
      run(actionKey('page', pageId, 'release'), confirmTimeoutMs, async () => {
        await daemon({ profile, method: 'tabmux/session.release', params: { session: id, pageId } });
        return (state) => !session(state, profile, id)?.pages.some((page) => page.pageId === pageId);
      }),

    attachPage: (profile, id, pageId) =>
      run(actionKey('page', pageId, 'attach'), confirmTimeoutMs, async () => {
        const result = await daemon({ profile, method: 'tabmux/session.attach', params: { session: id, pageId } });
        // The session knows the tab by its own worker's id, which the reply names.
        const attached = isRecord(result) && typeof result['pageId'] === 'number' ? result['pageId'] : pageId;
        return (state) => session(state, profile, id)?.pages.some((page) => page.pageId === attached) ?? true;
      }),

    openTab: (profile, url) =>
      run(actionKey('profile', profile, 'tabs.open'), confirmTimeoutMs, async () => {
        const opened = await daemon({ profile, method: 'tabmux/tabs.open', params: { url } });
        const info = isRecord(opened) && isRecord(opened['tab']) ? opened['tab'] : null;
        const pageId = info?.['pageId'];
        const worker = info?.['worker'];
        if (typeof pageId !== 'number' || typeof worker !== 'number') {
          return null;
        }
        return (state) => tab(state, profile, worker, pageId) !== undefined;
      }),

    cancelCall: (profile, callId) =>
      run(actionKey('call', callId, 'cancel'), confirmTimeoutMs, async () => {
        const result = await daemon({ profile, method: 'tabmux/queue.cancel', params: { callId } });
        if (isRecord(result) && result['cancelled'] === false) {
          store.getState().pushToast('info', `Call #${callId} had already started or finished, so there was nothing to cancel.`);
          return null;
        }
        return (state) => !state.queue[profile]?.some((entry) => entry.callId === callId);
      }),

    loadRequests: async (profile) => {
      const result = await daemon({ profile, method: 'tabmux/requests.list', params: {} }).catch(() => null);
      const parsed = controlResultSchema('tabmux/requests.list').safeParse(result);
      return parsed.success ? parsed.data.requests : [];
    },

    answerRequest: (profile, id, text) =>
      run(actionKey('request', profile, id), confirmTimeoutMs, async () => {
        await daemon({ profile, method: 'tabmux/requests.answer', params: { id, text, by: 'dashboard' } });
        return (state) => !waitsOn(state, profile, id);
      }),

    decideRequest: (profile, id, approve, reason) =>
      run(actionKey('request', profile, id), confirmTimeoutMs, async () => {
        await daemon({ profile, method: 'tabmux/requests.decide', params: { id, approve, by: 'dashboard', ...(reason ? { reason } : {}) } });
        return (state) => !waitsOn(state, profile, id);
      }),

    loadPolicies: async (profile) => {
      const result = await daemon({ profile, method: 'tabmux/policies.list', params: {} }).catch(() => null);
      const parsed = controlResultSchema('tabmux/policies.list').safeParse(result);
      return parsed.success ? parsed.data.policies : [];
    },

    addPolicy: async (profile, input) => {
      try {
        await daemon({ profile, method: 'tabmux/policies.add', params: { tools: [...input.tools], url: input.url, action: input.action, ...(input.reason ? { reason: input.reason } : {}) } });
        return null;
      } catch (error) {
        return TabmuxError.from(error).message;
      }
    },

    removePolicy: (profile, id) =>
      run(actionKey('policy', profile, id), confirmTimeoutMs, async () => {
        await daemon({ profile, method: 'tabmux/policies.remove', params: { id } });
        return null;
      }),

    logPicture: async (profile, name) => {
      const result = await daemon({ profile, method: 'tabmux/log.picture', params: { name } }).catch(() => null);
      return typeof result === 'object' && result !== null && 'data' in result && typeof result.data === 'string' ? result.data : null;
    },

    openHistory: async (profile, session = null) => {
      const state = store.getState();
      state.setHistoryFilter({ ...NO_HISTORY_FILTER, session });
      state.setView('history');
      state.setTimeline(loadingTimeline(profile));
      // A later open (or a close) replaces this one; its answer then goes nowhere.
      const mine = ++historyOpens;
      const current = (): Timeline | null => {
        const open = store.getState().timeline;
        return mine === historyOpens && open?.profile === profile ? open : null;
      };
      try {
        const result = activityQueryResultSchema.safeParse(await daemon({ profile, method: 'tabmux/log.query', params: { limit: TIMELINE_LIMIT } }));
        if (!result.success) {
          throw new TabmuxError('internal', 'the daemon answered the log query with something else than log entries');
        }
        const open = current();
        if (open) {
          store.getState().setTimeline(timelineLoaded(open, result.data.entries, result.data.truncated));
        }
      } catch (error) {
        const open = current();
        if (open) {
          store.getState().setTimeline({ ...open, state: 'failed', error: TabmuxError.from(error).message });
        }
      }
    },

    closeHistory: () => {
      historyOpens++;
      store.getState().setView('overview');
      store.getState().setTimeline(null);
    },
  };
}
