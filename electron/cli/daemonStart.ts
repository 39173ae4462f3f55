import { startDaemon } from '../core/lifecycle/daemonProcess.js';
import type { Command } from './Command.js';
import { chromeOptions } from './daemonRun.js';
import { formatBrowserShort } from './format.js';
import { startOptions } from './sessionOptions.js';

/**
 * `tabmux daemon start`. It is the first of the commands a script runs from nothing, and the daemon it spawns waits
 * for it to get that far, so it is built with the agent commands (see ownBuilds.ts): what it loads before the spawn
 * is little, and the protocol's schemas, which check the status it prints, load while the daemon starts.
 */
export const daemonStart: Command = {
  words: ['daemon', 'start'],
  usage: 'tabmux daemon start [--profile NAME] [--chrome PATH] [--headless]',
  summary: "Start the profile's Chrome and daemon in the background (no-op if running)",
  options: chromeOptions,
  examples: ['tabmux daemon start', 'tabmux daemon start --profile work --headless', 'tabmux daemon start --chrome /usr/bin/chromium'],
  run: async (context) => {
    const { status, started } = await startDaemon(context.paths, context.profile, { ...startOptions(context.values), startedBy: 'daemon-start' });
    const text = `${started ? 'started' : 'already running'}: profile ${status.profile}, daemon pid ${status.pid}, ${formatBrowserShort(status.browser)}, socket ${status.socketPath}`;
    context.stdout(context.json ? JSON.stringify({ ...status, started }, null, 2) : text);
    return 0;
  },
};
