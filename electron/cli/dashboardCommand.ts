import { join } from 'node:path';
import { TabmuxError } from '../../shared/errors.js';
import { DashboardServer } from '../core/dashboard/DashboardServer.js';
import { Logger } from '../core/Logger.js';
import { Supervisor } from '../core/supervisor/Supervisor.js';
import { SupervisorService } from '../core/supervisor/SupervisorService.js';
import { packageRoot } from '../core/version.js';
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
    summary: 'Serve the tabmux UI for every profile on 127.0.0.1; prints the link (with its access token) on the first line',
    options: { port: { type: 'string' } },
    run: async (context) => {
      const port = parsePort(stringOption(context.values, 'port'));
      const logger = Logger.toStderr('dashboard');
      const supervisor = new Supervisor({ paths: context.paths, logger });
      await supervisor.start();
      let server: DashboardServer;
      try {
        server = await DashboardServer.start({ service: new SupervisorService(supervisor), rendererDir: join(packageRoot(), 'dist', 'renderer'), port, logger });
      } catch (error) {
        await supervisor.dispose();
        throw error;
      }
      // Scripts read the link from the first line, so it comes before anything else.
      context.stdout(server.url);
      context.stderr('tabmux dashboard: serving every profile; daemons keep running when this stops. Press Ctrl+C to stop.');
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
      await supervisor.dispose();
      return 0;
    },
  },
];
