import { describe, expect, it } from 'vitest';
import { textOf } from '../../../shared/toolResult.js';
import type { BoundSession } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES, useHostileRig } from '../../helpers/hostileRig.js';

/**
 * Upstream keeps one performance trace per process, so two sessions on one worker share it. A curious session on
 * the recording session's worker must neither stop that recording nor read the trace (its URLs carry whatever the
 * page put in them: tokens, mail ids).
 */
describe.each(TOPOLOGIES)('performance traces on $name', (topology) => {
  const rig = useHostileRig(topology);

  async function recorder(): Promise<{ owner: BoundSession; other: BoundSession; url: string }> {
    const { first, second } = await rig().sameWorker();
    const url = rig().server.page('<p>account page</p>', 'Account', 'account-token-0451');
    await first.text('new_page', { url });
    await second.text('new_page', { url: rig().server.page('<p>curious</p>', 'Curious') });
    return { owner: first, other: second, url };
  }

  it("a session cannot stop another session's recording", async () => {
    const { owner, other, url } = await recorder();
    await owner.text('performance_start_trace', { reload: false, autoStop: false });
    const stolen = await other.call('performance_stop_trace', {});
    expect(stolen.isError).toBe(true);
    expect(textOf(stolen)).not.toContain(url);
    const stopped = await owner.text('performance_stop_trace', {});
    expect(stopped).toContain(url);
  });

  it("a session cannot start a recording over another session's", async () => {
    const { owner, other, url } = await recorder();
    await owner.text('performance_start_trace', { reload: false, autoStop: false });
    const started = await other.call('performance_start_trace', { reload: false, autoStop: false });
    expect(started.isError).toBe(true);
    expect(await owner.text('performance_stop_trace', {})).toContain(url);
    // Once the owner is done, the worker records for anyone again.
    await other.text('performance_start_trace', { reload: false, autoStop: false });
    expect(await other.text('performance_stop_trace', {})).not.toContain(url);
  });

  it("a session cannot read another session's finished trace", async () => {
    const { owner, other, url } = await recorder();
    await owner.text('performance_start_trace', { reload: true, autoStop: false });
    const trace = await owner.text('performance_stop_trace', {});
    expect(trace).toContain(url);
    // What the owner was offered, plus insights every page load has: the names an attacker would try.
    const insightSet = /insight set id: (\S+)/.exec(trace)?.[1] ?? 'NAVIGATION_0';
    const offered = [...trace.matchAll(/insight name: (\S+)/g)].map((match) => match[1] ?? '');
    const insights = [...new Set([...offered, 'LCPBreakdown', 'DocumentLatency'])];
    const read = [
      await other.call('performance_stop_trace', {}),
      ...(await Promise.all(insights.map((insightName) => other.call('performance_analyze_insight', { insightSetId: insightSet, insightName })))),
    ];
    for (const result of read) {
      expect(textOf(result)).not.toContain(url);
    }
  });

  it("a closed session's recording does not block the next session, nor leak to it", async () => {
    const { owner, other, url } = await recorder();
    await owner.text('performance_start_trace', { reload: false, autoStop: false });
    await rig().control.call('tabmux/session.close', { session: owner.id });
    await other.text('performance_start_trace', { reload: false, autoStop: false });
    expect(await other.text('performance_stop_trace', {})).not.toContain(url);
  });
});
