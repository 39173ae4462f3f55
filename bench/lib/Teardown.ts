/**
 * Everything the bench starts (Chrome, upstream children, daemons, temp folders) registers how to stop it here, so
 * one call stops all of it in reverse order: at the end of a suite, after a failure, or on Ctrl-C.
 */
export class Teardown {
  readonly #steps: { label: string; run: () => Promise<void> | void }[] = [];
  /** Runs are chained: a Ctrl-C arriving during the normal shutdown must not remove a folder Chrome still writes. */
  #chain: Promise<string[]> = Promise.resolve([]);

  add(label: string, run: () => Promise<void> | void): void {
    this.#steps.push({ label, run });
  }

  /** Runs and forgets every registered step, newest first; a failing step does not keep the others from running. */
  run(): Promise<string[]> {
    this.#chain = this.#chain.then(() => this.#drain());
    return this.#chain;
  }

  async #drain(): Promise<string[]> {
    const failures: string[] = [];
    for (let step = this.#steps.pop(); step !== undefined; step = this.#steps.pop()) {
      try {
        await step.run();
      } catch (error) {
        failures.push(`${step.label}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return failures;
  }
}
