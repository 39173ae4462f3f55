import { describe, expect, it } from 'vitest';
import type { QueueEntry } from '../../shared/model.js';
import { sessionCall } from './sessionCall.js';

const ID = 'sess-000000000000000a';

function entry(more: Partial<QueueEntry>): QueueEntry {
  return { callId: 1, sessionId: ID, tool: 'click', worker: 0, state: 'queued', enqueuedAt: 100, startedAt: null, ...more };
}

describe('sessionCall', () => {
  const lastCall = { tool: 'navigate_page', outcome: 'tool_error' as const, at: 10, endedAt: 50 };

  it('shows the running call first, from when it started', () => {
    const queue = [entry({ callId: 1, tool: 'take_snapshot', enqueuedAt: 90 }), entry({ callId: 2, tool: 'evaluate_script', state: 'running', enqueuedAt: 95, startedAt: 120 })];
    expect(sessionCall({ id: ID, lastCall }, queue)).toEqual({ kind: 'running', tool: 'evaluate_script', since: 120 });
  });

  it('else the call it has waited on longest', () => {
    const queue = [entry({ callId: 3, tool: 'fill', enqueuedAt: 130 }), entry({ callId: 2, tool: 'hover', enqueuedAt: 110 }), entry({ sessionId: 'sess-000000000000000b', tool: 'click', state: 'running', startedAt: 1 })];
    expect(sessionCall({ id: ID, lastCall }, queue)).toEqual({ kind: 'queued', tool: 'hover', since: 110 });
  });

  it('else its last answered call, with its outcome and how long it took', () => {
    expect(sessionCall({ id: ID, lastCall }, [])).toEqual({ kind: 'last', tool: 'navigate_page', outcome: 'tool_error', endedAt: 50, durationMs: 40 });
  });

  it('else nothing, also for a daemon that does not report last calls', () => {
    expect(sessionCall({ id: ID, lastCall: null }, undefined)).toEqual({ kind: 'none' });
    expect(sessionCall({ id: ID }, undefined)).toEqual({ kind: 'none' });
  });
});
