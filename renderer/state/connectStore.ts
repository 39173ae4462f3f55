import { TabmuxError } from '../../shared/errors.js';
import type { SupervisorEvent } from '../../shared/supervisor.js';
import type { Host } from '../host/Host.js';
import type { TabmuxStore } from './createTabmuxStore.js';

export interface ConnectOptions {
  /** Wait before asking again after a snapshot failed while still connected. */
  retryMs?: number;
}

/**
 * Feeds the store from a host: the snapshot on every (re)connect, then pushed events. Events that arrive while a
 * snapshot is in flight are held and replayed on top of it, so nothing between the two is lost.
 * Returns the teardown.
 */
export function connectStore(host: Host, store: TabmuxStore, options: ConnectOptions = {}): () => void {
  const retryMs = options.retryMs ?? 3000;
  let held: SupervisorEvent[] | null = [];
  let generation = 0;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let open = false;

  const load = async (): Promise<void> => {
    const mine = ++generation;
    held ??= [];
    try {
      const snapshot = await host.call('supervisor/snapshot', {});
      if (mine !== generation) {
        return;
      }
      store.getState().loadSnapshot(snapshot, held);
      held = null;
      store.getState().setLoadError(null);
    } catch (error) {
      if (mine !== generation) {
        return;
      }
      store.getState().setLoadError(TabmuxError.from(error).message);
      if (open) {
        retryTimer = setTimeout(() => {
          retryTimer = null;
          void load();
        }, retryMs);
      }
    }
  };

  const stopEvents = host.subscribe((event) => {
    if (event.type === 'picture') {
      // The picture feed takes frames; the store never holds them.
      return;
    }
    if (held) {
      held.push(event);
    } else {
      store.getState().receive(event);
    }
  });

  const stopConnection = host.watchConnection((connection) => {
    store.getState().setConnection(connection);
    open = connection.state === 'open';
    if (retryTimer) {
      clearTimeout(retryTimer);
      retryTimer = null;
    }
    if (open) {
      void load();
    } else {
      // The next snapshot supersedes everything before it; hold only what arrives after the reconnect.
      generation += 1;
      held = [];
    }
  });

  return () => {
    generation += 1;
    if (retryTimer) {
      clearTimeout(retryTimer);
    }
    stopConnection();
    stopEvents();
  };
}
