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
  options: { ...chromeOptions, 'no-headless': { type: 'boolean' } },
  run: (context) =>
    context.entryPoints.runDaemon({
      paths: context.paths,
      profile: context.profile,
      chrome: stringOption(context.values, 'chrome'),
      headless: boolOption(context.values, 'headless') ? true : boolOption(context.values, 'no-headless') ? false : undefined,
    }),
};
