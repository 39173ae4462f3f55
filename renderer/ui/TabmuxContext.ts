import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { TabmuxActions } from '../state/createActions.js';
import type { TabmuxState, TabmuxStore } from '../state/createTabmuxStore.js';
import type { PictureFeed } from '../state/PictureFeed.js';

export interface TabmuxContextValue {
  store: TabmuxStore;
  actions: TabmuxActions;
  /** Live pictures of tabs; frames never pass through the store. */
  pictures: PictureFeed;
}

export const TabmuxContext = createContext<TabmuxContextValue | null>(null);

function useTabmuxContext(): TabmuxContextValue {
  const value = useContext(TabmuxContext);
  if (!value) {
    throw new Error('TabmuxContext is missing: render the UI inside <TabmuxContext value={...}>.');
  }
  return value;
}

/** Selects from the store. Select single values or stable slice references; derive lists with useMemo. */
export function useTabmux<T>(selector: (state: TabmuxState) => T): T {
  return useStore(useTabmuxContext().store, selector);
}

export function useActions(): TabmuxActions {
  return useTabmuxContext().actions;
}

export function usePictures(): PictureFeed {
  return useTabmuxContext().pictures;
}

export function useIsPending(key: string): boolean {
  return useTabmux((state) => Object.hasOwn(state.pending, key));
}
