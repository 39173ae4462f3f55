import { afterEach, describe, expect, it, vi } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import type { HumanRequest } from '../../../shared/model.js';
import { HumanRequests } from './HumanRequests.js';

type Fields = Omit<HumanRequest, 'id' | 'createdAt' | 'timeoutAt'>;
const QUESTION: Fields = { kind: 'question', sessionId: 'sess-1', label: null, tool: 'ask_human', url: null, question: 'Which?', choices: [] };
const CONFIRM: Fields = { ...QUESTION, kind: 'confirm', tool: 'click', question: 'Allow click on https://a.example/?' };

describe('HumanRequests', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers a question once, and a late answer hears why it is gone', async () => {
    const changed: string[] = [];
    const humans = new HumanRequests((id) => changed.push(id));
    const asked = humans.ask(QUESTION, 60_000, 'conn-1', 'too slow');
    const [request] = humans.list();
    expect(humans.waitingOf('sess-1')).toMatchObject({ requestId: request?.id, kind: 'question' });
    humans.answer(request?.id ?? '', 'this one', 'dashboard');
    await expect(asked).resolves.toMatchObject({ text: 'this one', by: 'dashboard' });
    expect(humans.isWaiting('sess-1')).toBe(false);
    expect(changed).toEqual(['sess-1', 'sess-1']);
    expect(() => humans.answer(request?.id ?? '', 'again', 'cli')).toThrow(/no longer waits: it was answered/);
    expect(() => humans.answer('req-ffffffff', 'x', 'cli')).toThrow(/no request req-ffffffff waits/);
  });

  it('keeps questions and confirmations apart', async () => {
    const humans = new HumanRequests(() => undefined);
    const held = humans.ask(CONFIRM, 60_000, undefined, 'too slow');
    const id = humans.list()[0]?.id ?? '';
    expect(() => humans.answer(id, 'yes', 'cli')).toThrow(/tabmux approve/);
    humans.decide(id, false, 'not now', 'cli');
    await expect(held).resolves.toMatchObject({ approved: false, text: 'not now' });
  });

  it('times out, and ends with its connection or its session', async () => {
    vi.useFakeTimers();
    const humans = new HumanRequests(() => undefined);
    const timedOut = humans.ask(QUESTION, 1000, undefined, 'nobody answered');
    const dropped = humans.ask({ ...QUESTION, sessionId: 'sess-2' }, 60_000, 'conn-2', 'x');
    const closed = humans.ask({ ...QUESTION, sessionId: 'sess-3' }, 60_000, undefined, 'x');
    vi.advanceTimersByTime(1000);
    await expect(timedOut).rejects.toMatchObject({ code: 'timeout', message: 'nobody answered' });
    expect(humans.dropOwner('conn-2')).toBe(1);
    await expect(dropped).rejects.toMatchObject({ code: 'cancelled' });
    humans.dropSession('sess-3', new TabmuxError('session_closed', 'closed'));
    await expect(closed).rejects.toMatchObject({ code: 'session_closed' });
    expect(humans.list()).toEqual([]);
  });
});
