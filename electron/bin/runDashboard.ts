import { join } from 'node:path';
import type { DashboardRequest } from '../cli/EntryPoints.js';
import { DashboardServer } from '../core/dashboard/DashboardServer.js';
import { Logger } from '../core/platform/Logger.js';
import { Supervisor } from '../core/supervisor/Supervisor.js';
import { SupervisorService } from '../core/supervisor/SupervisorService.js';
import { packageRoot } from '../core/platform/version.js';

/** `tabmux dashboard`: the supervisor and the web UI for every profile, until SIGINT or SIGTERM. */
export async function runDashboard(request: DashboardRequest): Promise<number> {
  const logger = Logger.toStderr('dashboard');
  const supervisor = new Supervisor({ paths: request.paths, logger });
  await supervisor.start();
  let server: DashboardServer;
  try {
    server = await DashboardServer.start({
      service: new SupervisorService(supervisor),
      paths: request.paths,
      rendererDir: join(packageRoot(), 'dist', 'renderer'),
      port: request.port,
      logger,
    });
  } catch (error) {
    await supervisor.dispose();
    throw error;
  }
  // Scripts read the link from the first line, so it comes before anything else.
  request.stdout(request.json ? JSON.stringify({ url: server.url }) : server.url);
  request.stderr('tabmux dashboard: serving every profile; daemons keep running when this stops. Press Ctrl+C to stop.');
  request.stderr(
    "Open the link in a browser no agent drives: the profiles' browsers refuse this address, and the access token stays in the tab that opened the link.",
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  await supervisor.dispose();
  return 0;
}
