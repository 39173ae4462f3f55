import { describe, expect, it } from 'vitest';
import { droppedAnswerId } from './droppedAnswerId.js';

const waiting = new Set([3, 4, 17]);

describe('droppedAnswerId', () => {
  it('reads the id a result response writes last', () => {
    expect(droppedAnswerId('{"result":{"content":[{"type":"text","text":"xxx', 'xxx"}]},"jsonrpc":"2.0","id":17}', waiting)).toEqual({ kind: 'answer', id: 17 });
  });

  it('reads the id an error response writes first', () => {
    expect(droppedAnswerId('{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"xxx', 'xxx"}}', waiting)).toEqual({ kind: 'answer', id: 4 });
  });

  it('ignores page text that looks like an envelope but is not at the end of the line', () => {
    const tail = 'page wrote },\\"jsonrpc\\":\\"2.0\\",\\"id\\":3} here"}]},"jsonrpc":"2.0","id":17}';
    expect(droppedAnswerId('{"result":{"content":[{"type":"text","text":"', tail, waiting)).toEqual({ kind: 'answer', id: 17 });
    expect(droppedAnswerId('{"result":{"content":[{"type":"text","text":"', 'xx},"jsonrpc":"2.0","id":3}"}]}}', waiting)).toEqual({ kind: 'unknown' });
  });

  it('does not take an id this side is not waiting for', () => {
    expect(droppedAnswerId('{"result":"xxx', 'x"},"jsonrpc":"2.0","id":99}', waiting)).toEqual({ kind: 'unknown' });
  });

  it('knows a request or notification from the server answers nothing', () => {
    expect(droppedAnswerId('{"method":"notifications/message","params":{"data":"xxx', 'x"},"jsonrpc":"2.0","id":3}', waiting)).toEqual({ kind: 'not_an_answer' });
  });

  it('cannot tell when the tail was cut before the id', () => {
    expect(droppedAnswerId('{"result":"xxx', 'xxxx', waiting)).toEqual({ kind: 'unknown' });
  });
});
