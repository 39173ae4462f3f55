import type { EntryPoints } from '../cli/EntryPoints.js';
import { runBridge } from './runBridge.js';
import { runDaemon } from './runDaemon.js';
import { runDashboard } from './runDashboard.js';

/** The real programs behind `daemon run`, `dashboard` and `mcp serve`, for the CLI's command table. */
export const entryPoints: EntryPoints = { runDaemon, runDashboard, runBridge };
