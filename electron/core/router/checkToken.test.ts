import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { checkToken } from './checkToken.js';
import { Session } from './Session.js';
import { formatToken } from './uidTokens.js';

function setup() {
  const session = new Session('sess-00000000abcd1234', 'abcd1234', null, 0, 0);
  const current = session.addPage(1, 'created');
  const other = session.addPage(2, 'created');
  session.select(1);
  const oldEpoch = session.newEpoch(current, new Set(['1_0']));
  const otherEpoch = session.newEpoch(other, new Set(['2_0']));
  const epoch = session.newEpoch(current, new Set(['1_0', '1_1']));
  return { session, current, oldEpoch, otherEpoch, epoch };
}

function refusal(run: () => unknown): { code: string; message: string } | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof TabmuxError ? { code: error.code, message: error.message } : undefined;
  }
  return undefined;
}

describe('checkToken', () => {
  it('gives back the raw uid of a token from the latest snapshot of the current page', () => {
    const { session, current, epoch } = setup();
    expect(checkToken(session, current, formatToken('abcd1234', epoch, '1_1'), 'uid')).toBe('1_1');
  });

  it('refuses every other token with a code and the fix', () => {
    const { session, current, oldEpoch, otherEpoch, epoch } = setup();
    const check = (token: string) => refusal(() => checkToken(session, current, token, 'uid'));
    expect(check('1_1')).toMatchObject({ code: 'bad_token', message: expect.stringMatching(/raw upstream uid/) as unknown });
    expect(check('hello')).toEqual({ code: 'bad_token', message: 'uid: "hello" is not a uid token. Use the u:… uids from your latest take_snapshot' });
    expect(check('1_1')?.message).toBe('uid: "1_1" is not a uid token. It looks like a raw upstream uid; use the u:… uids from your latest take_snapshot');
    expect(check(formatToken('ffff0000', epoch, '1_1'))?.code).toBe('foreign_token');
    expect(check(formatToken('abcd1234', oldEpoch, '1_0'))?.code).toBe('stale_token');
    expect(check(formatToken('abcd1234', otherEpoch, '2_0'))).toMatchObject({ code: 'stale_token', message: expect.stringMatching(/select_page 2 first/) as unknown });
    expect(check(formatToken('abcd1234', epoch, '1_9'))?.code).toBe('bad_token');
  });

  it('names the field in the refusal', () => {
    const { session, current, epoch } = setup();
    expect(refusal(() => checkToken(session, current, 'x', 'elements[0].uid'))?.message).toMatch(/^elements\[0\]\.uid: /);
    const missing = formatToken('abcd1234', epoch, '1_9');
    expect(refusal(() => checkToken(session, current, missing, 'to_uid'))?.message).toBe(`to_uid: uid token ${missing} is not in your latest snapshot; call take_snapshot again`);
    // The usual argument is not named twice ("uid: uid token …").
    expect(refusal(() => checkToken(session, current, missing, 'uid'))?.message).toBe(`uid token ${missing} is not in your latest snapshot; call take_snapshot again`);
  });

  it("calls a token of no live session stale or unknown, and only a live one's another session's", () => {
    const { session, current, epoch } = setup();
    const live = new Set(['abcd1234', 'ffff0000']);
    const check = (token: string) => refusal(() => checkToken(session, current, token, 'uid', (short) => live.has(short)));
    expect(check(formatToken('ffff0000', epoch, '1_1'))).toMatchObject({ code: 'foreign_token', message: expect.stringMatching(/belongs to another session/) as unknown });
    const unknown = check('u:1a2b3c4d:1:1_3');
    expect(unknown).toMatchObject({ code: 'stale_token', message: expect.stringMatching(/stale or unknown/) as unknown });
    expect(unknown?.message).not.toMatch(/another session/);
  });
});
