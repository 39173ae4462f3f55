import { describe, expect, it } from 'vitest';
import type { SupervisorEvent } from '../../shared/supervisor.js';
import type { HostConnection } from './Host.js';
import { HostListeners } from './HostListeners.js';

const EVENT = { type: 'profiles.changed' } as unknown as SupervisorEvent;

describe('HostListeners', () => {
  it('tells a new connection listener the state at once, then each change, until it unsubscribes', () => {
    const listeners = new HostListeners({ state: 'connecting' });
    const heard: HostConnection[] = [];
    const stop = listeners.watchConnection((connection) => heard.push(connection));
    listeners.setConnection({ state: 'open' });
    stop();
    listeners.setConnection({ state: 'closed', reason: 'gone', retryAt: 1 });
    expect(heard).toEqual([{ state: 'connecting' }, { state: 'open' }]);
    expect(listeners.connection).toEqual({ state: 'closed', reason: 'gone', retryAt: 1 });
  });

  it('tells every event listener of an event, even one another listener unsubscribes meanwhile', () => {
    const listeners = new HostListeners({ state: 'open' });
    const heard: string[] = [];
    let stopSecond = (): void => undefined;
    listeners.subscribe(() => {
      heard.push('first');
      stopSecond();
    });
    stopSecond = listeners.subscribe(() => heard.push('second'));
    listeners.emit(EVENT);
    listeners.emit(EVENT);
    expect(heard).toEqual(['first', 'second', 'first']);
  });

  it('tells nobody anything once cleared', () => {
    const listeners = new HostListeners({ state: 'open' });
    const heard: unknown[] = [];
    listeners.subscribe((event) => heard.push(event));
    listeners.watchConnection((connection) => heard.push(connection));
    listeners.clear();
    listeners.emit(EVENT);
    listeners.setConnection({ state: 'connecting' });
    expect(heard).toEqual([{ state: 'open' }]);
  });
});
