import { connectOrStart } from '../core/lifecycle/daemonProcess.js';
import { stringOption, type Command } from './Command.js';
import { chromeOptions } from './daemonRun.js';
import { startOptions } from './sessionOptions.js';

/**
 * `tabmux session create`. Scripts run it before their first `mcp call`, so it is built with the agent commands
 * (see ownBuilds.ts): the id it prints is read by the daemon client's own check, and only `--json`, which prints the
 * whole session, loads the protocol's schemas to check it.
 */
export const sessionCreate: Command = {
  words: ['session', 'create'],
  usage: 'tabmux session create [--label TEXT]',
  summary: 'Create a session and print its id',
  options: { label: { type: 'string' }, ...chromeOptions },
  examples: ['S=$(tabmux session create --label my-agent)', 'tabmux session create --profile work --json'],
  run: async (context) => {
    const label = stringOption(context.values, 'label');
    const client = await connectOrStart(context.paths, context.profile, 'tabmux-cli', startOptions(context.values));
    try {
      if (context.json) {
        context.stdout(JSON.stringify(await client.call('tabmux/session.create', label === undefined ? {} : { label }), null, 2));
      } else {
        context.stdout((await client.createSession(label)).id);
      }
      return 0;
    } finally {
      client.close();
    }
  },
};
