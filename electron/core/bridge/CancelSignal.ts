/**
 * Says when the MCP client cancelled a request. The bridge makes one for every request it serves, so it is kept
 * smaller than an AbortController with its event target: a flag and the listeners of the call under way.
 */
export class CancelSignal {
  #aborted = false;
  #listeners: (() => void)[] = [];

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Marks the request cancelled and tells each listener once. */
  cancel(): void {
    if (this.#aborted) {
      return;
    }
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) {
      listener();
    }
  }

  /** Calls `listener` when the request is cancelled (at once if it already was); returns a function that forgets it. */
  onCancel(listener: () => void): () => void {
    if (this.#aborted) {
      listener();
      return () => undefined;
    }
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((kept) => kept !== listener);
    };
  }
}
