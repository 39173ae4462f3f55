import { describe, expect, it } from 'vitest';
import { TabmuxError } from './errors.js';
import { fromIpcReply, ipcFailure, toIpcReply } from './ipcReply.js';

/** Electron copies IPC values with the structured clone algorithm; so does this. */
function acrossIpc(value: unknown): unknown {
  return structuredClone(value);
}

describe('ipcReply', () => {
  it('carries a result through unchanged', async () => {
    const reply = acrossIpc(await toIpcReply(() => Promise.resolve({ profiles: [{ name: 'work' }] })));
    expect(fromIpcReply(reply)).toEqual({ profiles: [{ name: 'work' }] });
  });

  it('keeps a TabmuxError code and message intact', async () => {
    const reply = acrossIpc(await toIpcReply(() => Promise.reject(new TabmuxError('session_paused', 'session sess-1 is paused; resume it first'))));
    let thrown: unknown;
    try {
      fromIpcReply(reply);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TabmuxError);
    expect(thrown).toMatchObject({ code: 'session_paused', message: 'session sess-1 is paused; resume it first' });
  });

  it('turns other throwables into internal errors with their message', () => {
    expect(() => fromIpcReply(acrossIpc(ipcFailure(new Error('boom'))))).toThrow(expect.objectContaining({ code: 'internal', message: 'boom' }));
  });

  it('does not trust an unknown code or a malformed envelope', () => {
    expect(() => fromIpcReply({ ok: false, error: { code: 'no_such_code', message: 'm' } })).toThrow(expect.objectContaining({ code: 'internal', message: 'm' }));
    expect(() => fromIpcReply({ profiles: [] })).toThrow(expect.objectContaining({ code: 'protocol_mismatch' }));
    expect(() => fromIpcReply(undefined)).toThrow(expect.objectContaining({ code: 'protocol_mismatch' }));
  });
});
