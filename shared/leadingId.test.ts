import { describe, expect, it } from 'vitest';
import { leadingId } from './leadingId.js';

describe('leadingId', () => {
  it('reads a number or string id that comes early', () => {
    expect(leadingId('{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"xxxx')).toBe(42);
    expect(leadingId('{ "jsonrpc" : "2.0" , "id" : "call-7" , "method":"tabmux/status","params":{"pad":"yyy')).toBe('call-7');
    expect(leadingId('{"id":-3,"jsonrpc":"2.0"')).toBe(-3);
  });

  it('skips earlier members by structure, so an id inside them is not taken', () => {
    expect(leadingId('{"jsonrpc":"2.0","params":{"id":9,"text":"\\"id\\":8 }"},"id":5,"method":"x"')).toBe(5);
    expect(leadingId('{"result":{"id":"sess-1"},"jsonrpc":"2.0","id":11}')).toBe(11);
  });

  it('gives up when the id is cut off or comes after the cut', () => {
    expect(leadingId('{"jsonrpc":"2.0","id":12')).toBeUndefined();
    expect(leadingId('{"jsonrpc":"2.0","id":"abc')).toBeUndefined();
    expect(leadingId('{"jsonrpc":"2.0","method":"x","params":{"pad":"zzzz')).toBeUndefined();
    expect(leadingId('[1,2,3]')).toBeUndefined();
    expect(leadingId('')).toBeUndefined();
  });
});
