import { TabmuxError } from '../../shared/errors.js';
import type { DaemonStartedBy } from '../../shared/model.js';
import { boolOption, stringOption, type Command } from './Command.js';

/** Chrome's options, as `daemon start` and `daemon run` take them. */
export const chromeOptions = { chrome: { type: 'string' }, headless: { type: 'boolean' } } as const;

/**
 * `tabmux daemon run`, which `daemon start` runs in the background. It is in the command table for help, and in a
 * build of its own (electron/bin/daemon.ts) so that a daemon never loads the rest of the CLI.
 */
export const daemonRun: Command = {
  words: ['daemon', 'run'],
  usage: 'tabmux daemon run [--profile NAME] [--chrome PATH] [--headless|--no-headless]',
  summary: 'Run the daemon in the foreground (what daemon start runs in the background)',
  options: { ...chromeOptions, 'no-headless': { type: 'boolean' }, 'started-by': { type: 'string' } },
  examples: ['tabmux daemon run --profile work --headless', 'TABMUX_LOG_LEVEL=debug tabmux daemon run'],
  run: (context) =>
    context.entryPoints.runDaemon({
      paths: context.paths,
      profile: context.profile,
      chrome: stringOption(context.values, 'chrome'),
      headless: boolOption(context.values, 'headless') ? true : boolOption(context.values, 'no-headless') ? false : undefined,
      startedBy: startedByOption(stringOption(context.values, 'started-by')),
    }),
};

/** The starters that pass `--started-by` (see startDaemon); a person running `daemon run` passes none. */
const STARTERS: readonly DaemonStartedBy[] = ['demand', 'daemon-start', 'app'];

/** `--started-by`: who starts this daemon, which decides whether it exits when idle. */
function startedByOption(value: string | undefined): DaemonStartedBy | undefined {
  if (value === undefined) {
    return undefined;
  }
  const starter = STARTERS.find((known) => known === value);
  if (starter === undefined) {
    throw new TabmuxError('invalid_params', `--started-by must be one of ${STARTERS.join(', ')} (it is passed by what starts a daemon in the background), got ${value}`);
  }
  return starter;
}
