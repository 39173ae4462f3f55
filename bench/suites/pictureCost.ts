import { setTimeout as sleep } from 'node:timers/promises';
import type { PictureSize } from '../../shared/model.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { DEFAULT_PICTURE_LIMITS } from '../../electron/core/pictures/PictureLimits.js';
import { processTicks, TICKS_PER_SECOND, treeTicks } from '../lib/cpuTicks.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { summarize, timed } from '../lib/stats.js';
import { TabmuxDaemon } from '../lib/TabmuxDaemon.js';
import type { Teardown } from '../lib/Teardown.js';
import { okText, QUICK_EVAL } from '../lib/toolCalls.js';

const BLOCKS = 6;
const CALLS_PER_BLOCK = 20;
const WARM_UP = 5;
const CPU_WINDOW_MS = 5000;

/** A page that repaints every frame while it is visible: the most a watched tab can cost. */
const ANIMATED_PAGE = `data:text/html,${encodeURIComponent(
  '<!doctype html><title>spinner</title><div id="b" style="margin:80px;width:200px;height:200px;background:linear-gradient(red,blue)"></div>' +
    '<script>let t=0;(function f(){b.style.transform="rotate("+(t++)+"deg)";requestAnimationFrame(f)})()</script>',
)}`;

/**
 * What live pictures cost. An agent's smallest call with its tab open in a live view (frames flowing at the live
 * view's rate) against the same call with nobody watching, in alternating blocks; then the CPU the daemon and
 * Chrome (all its processes) use over a window of a few seconds with one tab watched, live or as a thumbnail,
 * against the same window with nothing watched. The watched tab animates, so frames never stop: the worst case.
 */
export async function pictureCost(teardown: Teardown, log: (message: string) => void): Promise<Row[]> {
  log('live pictures: agent call with a live view open vs closed, and CPU per watched tab');
  const tabmux = await TabmuxDaemon.start(teardown, { workers: 1 });
  const agent = await tabmux.session('bench-watched');
  okText(await agent.call('navigate_page', { url: ANIMATED_PAGE }), 'navigate to the animated page');
  const viewer = await DaemonClient.connect(tabmux.daemon.socketPath, 'tabmux-bench-viewer');
  teardown.add('close viewer connection', () => viewer.close());
  let frames = 0;
  viewer.onEvent((event) => {
    if (event.type === 'picture') {
      frames += 1;
    }
  });
  const { tabs } = await viewer.call('tabmux/tabs.list');
  const tabId = tabs.find((tab) => tab.owner === agent.id)?.tabId;
  if (tabId === undefined) {
    throw new Error("the agent's tab has no tab id in tabs.list");
  }
  const watch = async (size: PictureSize | null): Promise<void> => {
    await viewer.call('tabmux/pictures.watch', { tabs: size === null ? [] : [{ tabId, size }] });
    if (size !== null) {
      const before = frames;
      while (frames === before) {
        await sleep(20);
      }
    }
  };
  const call = () => timed(async () => okText(await agent.call('evaluate_script', QUICK_EVAL), 'evaluate_script'));

  for (let index = 0; index < WARM_UP; index++) {
    await call();
  }
  const open: number[] = [];
  const closed: number[] = [];
  const framesAtStart = frames;
  let openMs = 0;
  for (let block = 0; block < BLOCKS; block++) {
    // Alternate which side goes first, so drift falls on both alike.
    for (const side of block % 2 === 0 ? (['closed', 'open'] as const) : (['open', 'closed'] as const)) {
      await watch(side === 'open' ? 'live' : null);
      const started = performance.now();
      for (let index = 0; index < CALLS_PER_BLOCK; index++) {
        (side === 'open' ? open : closed).push(await call());
      }
      if (side === 'open') {
        openMs += performance.now() - started;
      }
    }
  }
  await watch(null);
  const liveFps = ((frames - framesAtStart) / openMs) * 1000;
  const figure = summarize(open);
  const baseline = summarize(closed);

  const chromePid = tabmux.daemon.status().chrome.pid;
  const cpu = async (size: PictureSize | null): Promise<{ daemon: number; chrome: number }> => {
    await watch(size);
    const daemonBefore = await processTicks(process.pid);
    const chromeBefore = chromePid === null ? 0 : await treeTicks(chromePid);
    await sleep(CPU_WINDOW_MS);
    const daemonAfter = await processTicks(process.pid);
    const chromeAfter = chromePid === null ? 0 : await treeTicks(chromePid);
    const percent = (ticks: number): number => (ticks / TICKS_PER_SECOND / (CPU_WINDOW_MS / 1000)) * 100;
    return { daemon: percent(daemonAfter - daemonBefore), chrome: percent(chromeAfter - chromeBefore) };
  };
  const idle = await cpu(null);
  const live = await cpu('live');
  const thumb = await cpu('thumb');
  await watch(null);

  const { live: liveLimit, thumb: thumbLimit } = DEFAULT_PICTURE_LIMITS;
  const cpuNote = (who: string, size: PictureSize): string =>
    `${who} CPU over ${CPU_WINDOW_MS / 1000} s from /proc/<pid>/stat utime+stime${who === 'Chrome' ? ' summed over its whole process tree' : ' (the daemon runs in the bench process, idle meanwhile)'}, in % of one core. Figure: the agent's tab (animating every frame) watched as ${size === 'live' ? `the live view (≤ ${liveLimit.maxWidth}x${liveLimit.maxHeight}, ≤ ${liveLimit.fps} fps)` : `a thumbnail (≤ ${thumbLimit.maxWidth}x${thumbLimit.maxHeight}, ≤ ${thumbLimit.fps} fps)`}. Baseline: nothing watched (the background tab does not paint).${who === 'Chrome' ? " Most of Chrome's share is the page itself: a watched tab counts as visible, so its animation runs every frame, whatever the picture's rate." : ''}`;
  return [
    {
      name: 'agent call, live view open vs closed',
      figure,
      baseline,
      unit: 'ms',
      ratio: ratio(figure, baseline),
      goal: { kind: 'max', limit: 1.05 },
      note: `evaluate_script \`() => 1\` on the watched session, ${BLOCKS} alternating blocks of ${CALLS_PER_BLOCK} calls per side after ${WARM_UP} warm-up calls, one daemon with one worker. Figure: its tab open in a live view over the daemon socket (an animated page, ${liveFps.toFixed(1)} frames/s received). Baseline: nobody watching.`,
    },
    { name: 'daemon CPU, one tab watched live', figure: live.daemon, baseline: idle.daemon, unit: '% core', ratio: null, goal: { kind: 'info' }, note: cpuNote('daemon', 'live') },
    { name: 'Chrome CPU, one tab watched live', figure: live.chrome, baseline: idle.chrome, unit: '% core', ratio: null, goal: { kind: 'info' }, note: cpuNote('Chrome', 'live') },
    { name: 'daemon CPU, one tab as a thumbnail', figure: thumb.daemon, baseline: idle.daemon, unit: '% core', ratio: null, goal: { kind: 'info' }, note: cpuNote('daemon', 'thumb') },
    { name: 'Chrome CPU, one tab as a thumbnail', figure: thumb.chrome, baseline: idle.chrome, unit: '% core', ratio: null, goal: { kind: 'info' }, note: cpuNote('Chrome', 'thumb') },
  ];
}
