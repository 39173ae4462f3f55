import { describe, expect, it } from 'vitest';
import { queueRows } from './queueRows.js';

describe('queueRows', () => {
  it('marks tabmux housekeeping calls as internal and names them', () => {
    const rows = queueRows(
      [
        { callId: 1, sessionId: 'tabmux', tool: 'list_pages', worker: 0, state: 'queued', enqueuedAt: 1000, startedAt: null },
        { callId: 2, sessionId: 'sess-0123456789abcdef', tool: 'click', worker: 0, state: 'running', enqueuedAt: 1000, startedAt: 1500 },
      ],
      {},
      2000,
    );
    expect(rows.map((row) => [row.internal, row.sessionName])).toEqual([
      [true, 'tabmux (housekeeping)'],
      [false, expect.any(String)],
    ]);
    expect(rows[0]?.waitedMs).toBe(1000);
    expect(rows[1]?.runningMs).toBe(500);
  });
});
