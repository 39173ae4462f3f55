import type { StoreApi } from 'zustand/vanilla';

/**
 * Resolves true once `predicate` holds for the store's state (checked now and after every change), or false after
 * `timeoutMs`. Actions use it to wait for the event that confirms what their call asked for.
 */
export function waitForState<T>(store: StoreApi<T>, predicate: (state: T) => boolean, timeoutMs: number): Promise<boolean> {
  if (predicate(store.getState())) {
    return Promise.resolve(true);
  }
  return new Promise<boolean>((resolve) => {
    const finish = (result: boolean): void => {
      clearTimeout(timer);
      unsubscribe();
      resolve(result);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    const unsubscribe = store.subscribe((state) => {
      if (predicate(state)) {
        finish(true);
      }
    });
  });
}
