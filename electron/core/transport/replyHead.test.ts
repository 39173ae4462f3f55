import { describe, expect, it } from 'vitest';
import { replyHead } from './replyHead.js';

const head = (line: string): ReturnType<typeof replyHead> => replyHead(Buffer.from(line));

describe('replyHead', () => {
  it('reads the id of a reply laid out as JSON.stringify writes it, and where its result starts', () => {
    const line = JSON.stringify({ jsonrpc: '2.0', id: 42, result: { content: [] } });
    expect(head(line)).toEqual({ id: 42, resultAt: line.indexOf('{"content"') });
    expect(head(JSON.stringify({ jsonrpc: '2.0', id: 'call-é', result: 1 }))).toMatchObject({ id: 'call-é' });
    expect(head(JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'x' } }))).toEqual({ id: 3, resultAt: undefined });
  });

  it('leaves every other line to a full parse', () => {
    expect(head(JSON.stringify({ jsonrpc: '2.0', id: 'a"b', result: 1 }))).toBeUndefined();
    expect(head('{"jsonrpc":"2.0","id":07,"result":1}')).toBeUndefined();
    expect(head('{"jsonrpc":"2.0","id":1.5,"result":1}')).toBeUndefined();
    expect(head('{"id":1,"jsonrpc":"2.0","result":1}')).toBeUndefined();
    expect(head('{"jsonrpc":"2.0","method":"x"}')).toBeUndefined();
    expect(head('{"jsonrpc":"2.0","id":')).toBeUndefined();
  });
});
