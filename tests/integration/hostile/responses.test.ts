import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../electron/core/transport/socketLimits.js';
import { textOf } from '../../../shared/toolResult.js';
import { TOPOLOGIES, useHostileRig } from '../../helpers/hostileRig.js';

/**
 * A page decides how big a tool's answer is. An answer over the socket's line limit must reach the client as a clear
 * error, not as a call that waits forever, and the daemon must keep serving.
 */
describe.each(TOPOLOGIES)('oversized answers on $name', (topology) => {
  const rig = useHostileRig(topology);

  it('an answer over the line limit fails the call instead of leaving it waiting', { timeout: 120_000 }, async () => {
    const s = await rig().session('greedy');
    const size = DEFAULT_MAX_RESPONSE_BYTES + 2 * 1024 * 1024;
    await s.text('new_page', { url: rig().server.page(`<script>window.dump = () => 'x'.repeat(${size});</script>`, 'Dump') });
    const outcome = await s.call('evaluate_script', { function: '() => window.dump()' }).then(
      (result) => ({ failed: result.isError === true, said: textOf(result).slice(0, 300) }),
      (error: unknown) => ({ failed: true, said: String(error) }),
    );
    expect(outcome.failed, outcome.said).toBe(true);
    const next = await rig().session('next');
    expect(await next.text('evaluate_script', { function: '() => 6 * 7' })).toContain('42');
    // The error says what happened: the answer was too big, not that something crashed.
    expect(outcome.said).toMatch(/limit|too (large|long|big)|MiB|bytes/i);
  });
});
