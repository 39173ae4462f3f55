import { TabmuxError } from '../../shared/errors.js';
import { stringOption, type Command } from './Command.js';

function parsePort(value: string | undefined): number {
  if (value === undefined) {
    return 0;
  }
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TabmuxError('invalid_params', '--port must be a whole number from 0 to 65535 (0 picks a free port)');
  }
  return port;
}

export const dashboardCommands: Command[] = [
  {
    words: ['dashboard'],
    usage: 'tabmux dashboard [--port N]',
    summary: 'Serve the tabmux UI for every profile on 127.0.0.1; prints the link (with its access token) on the first line, as {"url"} with --json',
    options: { port: { type: 'string' } },
    optionHelp: { port: { text: 'the loopback port to serve on', value: 'N', default: '0, a free port' } },
    examples: ['tabmux dashboard', 'tabmux dashboard --port 7400', 'tabmux dashboard --json | head -1'],
    anyProfile: true,
    run: (context) =>
      context.entryPoints.runDashboard({ paths: context.paths, port: parsePort(stringOption(context.values, 'port')), json: context.json, stdout: context.stdout, stderr: context.stderr }),
  },
];
