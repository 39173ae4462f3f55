/**
 * Polls `probe` until it returns a value (not undefined); fails after `timeoutMs`, naming what it waited for (`what` may
 * be a function, asked only then, to tell what was last seen).
 */
export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, what: string | (() => string), timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls `check` until it holds; fails after `timeoutMs`, naming what it waited for (as `waitFor` does). */
export async function waitUntil(check: () => Promise<boolean> | boolean, what: string | (() => string), timeoutMs = 15_000): Promise<void> {
  await waitFor(async () => ((await check()) ? true : undefined), what, timeoutMs);
}
