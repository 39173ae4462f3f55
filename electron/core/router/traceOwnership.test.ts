import { describe, expect, it } from 'vitest';
import { Session } from './Session.js';
import { checkTraceCall, noteTraceCall, type TraceState } from './traceOwnership.js';

const a = new Session('sess-aaaaaaaaaaaaaaaa', 'aaaaaaaa', null, 0, 0);
const b = new Session('sess-bbbbbbbbbbbbbbbb', 'bbbbbbbb', null, 0, 0);
const live = new Map([a, b].map((session) => [session.id, session]));

describe('trace ownership', () => {
  it("keeps a recording and its results to the session that started it", () => {
    const state: TraceState = { owner: null, recording: false };
    expect(checkTraceCall(state, a, 'performance_start_trace', (id) => live.get(id))).toEqual({ stopOrphan: false });
    noteTraceCall(state, a, 'performance_start_trace', { autoStop: false });
    expect(() => checkTraceCall(state, b, 'performance_start_trace', (id) => live.get(id))).toThrow(expect.objectContaining({ code: 'resource_busy' }));
    expect(() => checkTraceCall(state, b, 'performance_stop_trace', (id) => live.get(id))).toThrow(/not recording/);
    noteTraceCall(state, a, 'performance_stop_trace', {});
    expect(() => checkTraceCall(state, b, 'performance_analyze_insight', (id) => live.get(id))).toThrow(/no recorded performance trace/);
    expect(checkTraceCall(state, a, 'performance_analyze_insight', (id) => live.get(id))).toEqual({ stopOrphan: false });
  });

  it("lets another session record once the owner of a running recording is gone", () => {
    const state: TraceState = { owner: 'sess-gone', recording: true };
    expect(checkTraceCall(state, b, 'performance_start_trace', (id) => live.get(id))).toEqual({ stopOrphan: true });
  });
});
