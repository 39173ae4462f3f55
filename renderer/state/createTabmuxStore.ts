import { createStore, type StateCreator, type StoreApi } from 'zustand/vanilla';
import type { SupervisorEvent, SupervisorSnapshot } from '../../shared/supervisor.js';
import type { HostConnection } from '../host/Host.js';
import { applyEvent, applyEvents } from './applyEvent.js';
import { emptyServerState, fromSnapshot, type ServerState } from './ServerState.js';
import { appendActivity, type HistoryFilter, type Timeline } from './Timeline.js';
import { initialUiState, type ProfileView, type Toast, type UiState } from './UiState.js';

export interface ServerSlice extends ServerState {
  loadSnapshot: (snapshot: SupervisorSnapshot, since?: readonly SupervisorEvent[]) => void;
  receive: (event: SupervisorEvent) => void;
  /** The profile history that is open, if any. */
  timeline: Timeline | null;
  setTimeline: (timeline: Timeline | null) => void;
}

export interface UiSlice extends UiState {
  selectProfile: (name: string) => void;
  setDebug: (on: boolean) => void;
  setConnection: (connection: HostConnection) => void;
  setLoadError: (message: string | null) => void;
  setPending: (key: string, on: boolean) => void;
  pushToast: (kind: Toast['kind'], message: string) => number;
  dismissToast: (id: number) => void;
  openLiveView: (profile: string, tabId: string) => void;
  closeLiveView: () => void;
  setView: (view: ProfileView) => void;
  setHistoryFilter: (filter: Partial<HistoryFilter>) => void;
}

export type TabmuxState = ServerSlice & UiSlice;
export type TabmuxStore = StoreApi<TabmuxState>;

const createServerSlice: StateCreator<TabmuxState, [], [], ServerSlice> = (set) => ({
  ...emptyServerState(),
  loadSnapshot: (snapshot, since = []) => set(applyEvents(fromSnapshot(snapshot), since)),
  receive: (event) => set((state) => ({ ...applyEvent(state, event), timeline: appendActivity(state.timeline, event) })),
  timeline: null,
  setTimeline: (timeline) => set({ timeline }),
});

let nextToastId = 1;

const createUiSlice: StateCreator<TabmuxState, [], [], UiSlice> = (set) => ({
  ...initialUiState(),
  // Another profile opens on its sessions; the history of the one left is dropped rather than kept growing unseen.
  selectProfile: (name) => set((state) => (state.selectedProfile === name ? state : { selectedProfile: name, view: 'overview', timeline: null })),
  setDebug: (on) => set({ debug: on }),
  setConnection: (connection) => set({ connection }),
  setLoadError: (message) => set({ loadError: message }),
  setPending: (key, on) =>
    set((state) => {
      if (on === Object.hasOwn(state.pending, key)) {
        return state;
      }
      const pending: Record<string, true> = on
        ? { ...state.pending, [key]: true }
        : Object.fromEntries(Object.entries(state.pending).filter(([name]) => name !== key));
      return { pending };
    }),
  pushToast: (kind, message) => {
    const id = nextToastId++;
    // Keep the newest few: a burst of identical failures should not bury the page.
    set((state) => ({ toasts: [...state.toasts.filter((toast) => toast.message !== message), { id, kind, message }].slice(-4) }));
    return id;
  },
  dismissToast: (id) => set((state) => ({ toasts: state.toasts.filter((toast) => toast.id !== id) })),
  openLiveView: (profile, tabId) => set({ liveView: { profile, tabId } }),
  closeLiveView: () => set({ liveView: null }),
  setView: (view) => set({ view }),
  setHistoryFilter: (filter) => set((state) => ({ historyFilter: { ...state.historyFilter, ...filter } })),
});

export function createTabmuxStore(): TabmuxStore {
  return createStore<TabmuxState>()((...args) => ({ ...createServerSlice(...args), ...createUiSlice(...args) }));
}
