import { describe, expect, it } from 'vitest';
import { ProfileSlots } from './ProfileSlots.js';
import type { Slot } from './Slot.js';

function slots(): { slots: ProfileSlots; changed: string[] } {
  const changed: string[] = [];
  return { slots: new ProfileSlots(undefined, (slot: Slot) => changed.push(`${slot.name}:${slot.kind}`)), changed };
}

describe('ProfileSlots', () => {
  it('adds a slot for each new profile and tells of it, in the order found', () => {
    const { slots: known, changed } = slots();
    known.sync([
      { name: 'default', config: {} },
      { name: 'ext', config: { browserUrl: 'http://127.0.0.1:9222' } },
    ]);
    expect(known.all().map((slot) => [slot.name, slot.kind, slot.state])).toEqual([
      ['default', 'launched', 'stopped'],
      ['ext', 'external', 'stopped'],
    ]);
    expect(changed).toEqual(['default:launched', 'ext:external']);
    known.sync([
      { name: 'default', config: {} },
      { name: 'ext', config: { browserUrl: 'http://127.0.0.1:9222' } },
    ]);
    expect(changed).toHaveLength(2);
  });

  it('shows another browser for a profile added again with it, in the same slot', () => {
    const { slots: known, changed } = slots();
    known.sync([{ name: 'work', config: {} }]);
    const slot = known.of('work');
    known.sync([{ name: 'work', config: { browserUrl: 'http://127.0.0.1:9222' } }]);
    expect(known.of('work')).toBe(slot);
    expect(slot.kind).toBe('external');
    expect(changed).toEqual(['work:launched', 'work:external']);
  });

  it('forgets a removed profile once nothing runs for it', () => {
    const { slots: known } = slots();
    known.sync([
      { name: 'a', config: {} },
      { name: 'b', config: {} },
    ]);
    known.of('a').busy = true;
    known.sync([]);
    expect(known.all().map((slot) => slot.name)).toEqual(['a']);
    known.of('a').busy = false;
    known.sync([]);
    expect(known.has('a')).toBe(false);
  });

  it('says how to create a profile it does not know', () => {
    const { slots: known } = slots();
    expect(known.get('nope')).toBeUndefined();
    expect(() => known.of('nope')).toThrow(/profile nope does not exist; create it with: tabmux profile add nope/);
  });
});
