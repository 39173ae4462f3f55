/**
 * Everything the bench starts (Chrome, upstream children, daemons, temp folders) registers how to stop it here, so
 * one call stops all of it in reverse order: at the end of a suite, after a failure, or on Ctrl-C.
 */
export class Teardown {
  readonly #steps: { label: string; run: () => Promise<void> | void }[] = [];

  add(label: string, run: () => Promise<void> | void): void {
    this.#steps.push({ label, run });
  }

  /** Runs and forgets every registered step, newest first; a failing step does not keep the others from running. */
  async run(): Promise<string[]> {
    const failures: string[] = [];
    while (this.#steps.length > 0) {
      const step = this.#steps.pop();
      if (!step) {
        break;
      }
      try {
        await step.run();
      } catch (error) {
        failures.push(`${step.label}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return failures;
  }
}
