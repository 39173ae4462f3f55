import { describe, expect, it } from 'vitest';
import { formatToken, parseToken, translateInputUids } from './uidTokens.js';

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
