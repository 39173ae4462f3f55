import { describe, expect, it } from 'vitest';
import { formatToken, parseToken, rewriteOutputUids, snapshotUids, translateInputUids } from './uidTokens.js';

describe('uid tokens', () => {
  it('round-trips a token', () => {
    const token = formatToken('abcd1234', 7, '12_34');
    expect(token).toBe('u:abcd1234:7:12_34');
    expect(parseToken(token)).toEqual({ short: 'abcd1234', epoch: 7, raw: '12_34' });
  });

  it('rejects anything that is not a token', () => {
    for (const value of ['1_2', 'u:abcd:1', 'u:ABCD1234:1:1_2', 'u:abcd1234:x:1_2', 'u:abcd1234:1:1_2 ', '', 'u:abcd1234:1:1_2:3']) {
      expect(parseToken(value)).toBeUndefined();
    }
  });

  it('rewrites every uid mention form upstream prints', () => {
    const text = [
      'uid=1_0 RootWebArea "T"',
      '  uid=1_12 button "Go"',
      'Error: Element uid "2_6" not found on page 2.',
      'Failed to interact with the element with uid 1_6. timeout',
      'color: red (uid: "3_1")',
      'Took a screenshot of node with uid "4_2".',
      'a 1_2 that is not a uid stays',
    ].join('\n');
    const out = rewriteOutputUids(text, (raw) => `T(${raw})`);
    expect(out).toBe(
      [
        'uid=T(1_0) RootWebArea "T"',
        '  uid=T(1_12) button "Go"',
        'Error: Element uid "T(2_6)" not found on page 2.',
        'Failed to interact with the element with uid T(1_6). timeout',
        'color: red (uid: "T(3_1)")',
        'Took a screenshot of node with uid "T(4_2)".',
        'a 1_2 that is not a uid stays',
      ].join('\n'),
    );
  });

  it('collects the uids a snapshot defines', () => {
    expect([...snapshotUids('uid=1_0 RootWebArea\n  uid=1_2 button "x uid=9_9"\nno uid here')]).toEqual(['1_0', '1_2']);
  });

  it('translates every uid-bearing input field and leaves others alone', () => {
    const seen: string[] = [];
    const out = translateInputUids(
      { uid: 'a', from_uid: 'b', to_uid: 'c', args: ['d', 5], elements: [{ uid: 'e', value: 'v' }, { value: 'w' }], value: 'a' },
      (token, field) => {
        seen.push(field);
        return token.toUpperCase();
      },
    );
    expect(out).toEqual({ uid: 'A', from_uid: 'B', to_uid: 'C', args: ['D', 5], elements: [{ uid: 'E', value: 'v' }, { value: 'w' }], value: 'a' });
    expect(seen).toEqual(['uid', 'from_uid', 'to_uid', 'args[0]', 'elements[0].uid']);
  });
});
