import { describe, expect, it } from 'vitest';
import { leadingId } from '../../../shared/leadingId.js';
import { LineDecoder } from './LineDecoder.js';

describe('LineDecoder', () => {
  it('splits lines across chunks', () => {
    const decoder = new LineDecoder(100);
    expect(decoder.push(Buffer.from('{"a":1}\n{"b"'))).toEqual([{ line: '{"a":1}' }]);
    expect(decoder.push(Buffer.from(':2}\r\n'))).toEqual([{ line: '{"b":2}' }]);
  });

  it('reports a line over the limit once, with its head, and reads the next line', () => {
    const decoder = new LineDecoder(64);
    const long = `{"jsonrpc":"2.0","id":9,"result":"${'x'.repeat(200)}"}`;
    const first = decoder.push(Buffer.from(long.slice(0, 40)));
    const second = decoder.push(Buffer.from(`${long.slice(40)}\n{"ok":true}\n`));
    expect(first).toEqual([]);
    expect(second).toHaveLength(2);
    const [dropped, next] = second;
    expect(dropped && 'error' in dropped ? [dropped.error.code, leadingId(dropped.head)] : undefined).toEqual(['line_too_long', 9]);
    expect(next).toEqual({ line: '{"ok":true}' });
  });

  it('reports a line that is not UTF-8 with its head', () => {
    const decoder = new LineDecoder(100);
    const [decoded] = decoder.push(Buffer.concat([Buffer.from('{"id":"u","x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]));
    expect(decoded && 'error' in decoded ? [decoded.error.code, leadingId(decoded.head)] : undefined).toEqual(['parse_error', 'u']);
  });

  it('keeps the tail of a line over the limit and reports it when the line ends', () => {
    const decoder = new LineDecoder(64, { tailBytes: 24 });
    const long = `{"result":"${'x'.repeat(200)}","jsonrpc":"2.0","id":12}`;
    expect(decoder.push(Buffer.from(long.slice(0, 100)))).toEqual([]);
    expect(decoder.push(Buffer.from(long.slice(100, 190)))).toEqual([]);
    const [dropped, next] = decoder.push(Buffer.from(`${long.slice(190)}\r\n{"ok":true}\n`));
    expect(dropped && 'error' in dropped ? [dropped.error.code, dropped.head.slice(0, 12), dropped.tail] : undefined).toEqual([
      'line_too_long',
      '{"result":"x',
      long.slice(-24),
    ]);
    expect(next).toEqual({ line: '{"ok":true}' });
  });

  it('keeps a tail when the line crosses the limit and ends in the same chunk', () => {
    const decoder = new LineDecoder(16, { tailBytes: 8 });
    const [dropped] = decoder.push(Buffer.from('abcdefghijklmnopqrstuvwxyz\n'));
    expect(dropped && 'error' in dropped ? [dropped.head, dropped.tail] : undefined).toEqual(['abcdefghijklmnopqrstuvwxyz', 'stuvwxyz']);
  });

  it('without a tail, reports a long line as soon as it crosses the limit', () => {
    const decoder = new LineDecoder(16);
    const [dropped] = decoder.push(Buffer.from('abcdefghijklmnopqrstuvwxyz'));
    expect(dropped && 'error' in dropped ? [dropped.error.code, dropped.tail] : undefined).toEqual(['line_too_long', '']);
    expect(decoder.push(Buffer.from('zz\nok\n'))).toEqual([{ line: 'ok' }]);
  });
});
