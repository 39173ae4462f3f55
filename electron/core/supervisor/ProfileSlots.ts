import { TabmuxError } from '../../../shared/errors.js';
import type { ProfileConfig } from '../profile/ProfileStore.js';
import { profileSource } from './profileSource.js';
import { RestartPolicy, type RestartPolicyOptions } from './RestartPolicy.js';
import { newSlot, type Slot } from './Slot.js';

/**
 * The profiles a supervisor knows, one slot each, kept in step with the profile list on disk, which the CLI or
 * another window may change at any time. `changed` hears of each slot that appears or names another browser.
 */
export class ProfileSlots {
  readonly #slots = new Map<string, Slot>();
  readonly #restart: RestartPolicyOptions | undefined;
  readonly #changed: (slot: Slot) => void;

  constructor(restart: RestartPolicyOptions | undefined, changed: (slot: Slot) => void) {
    this.#restart = restart;
    this.#changed = changed;
  }

  get(name: string): Slot | undefined {
    return this.#slots.get(name);
  }

  has(name: string): boolean {
    return this.#slots.has(name);
  }

  /** Every slot, in the order their profiles were first seen. */
  all(): Slot[] {
    return [...this.#slots.values()];
  }

  /** The profile's slot; a profile the list does not hold is the caller's mistake, told with how to create it. */
  of(name: string): Slot {
    const slot = this.#slots.get(name);
    if (!slot) {
      throw new TabmuxError('invalid_profile', `profile ${name} does not exist; create it with: tabmux profile add ${name} (tabmux profile list shows the profiles)`);
    }
    return slot;
  }

  /** Brings the slots in step with the profile list just read. */
  sync(entries: readonly { name: string; config: ProfileConfig }[]): void {
    const names = entries.map((entry) => entry.name);
    for (const { name, config } of entries) {
      const source = profileSource(config);
      const known = this.#slots.get(name);
      if (known) {
        if (known.kind !== source.kind || known.endpoint !== source.endpoint) {
          // Removed and added again with another browser; the UI must not keep showing the old one.
          Object.assign(known, source);
          this.#changed(known);
        }
      } else {
        const slot = newSlot(name, source, new RestartPolicy(this.#restart));
        this.#slots.set(name, slot);
        // A profile added by the CLI or another window shows up in every UI without a reload.
        this.#changed(slot);
      }
    }
    for (const [name, slot] of this.#slots) {
      // A profile removed from the list is forgotten once nothing runs for it.
      if (!names.includes(name) && !slot.watch && !slot.busy) {
        this.#slots.delete(name);
      }
    }
  }
}
