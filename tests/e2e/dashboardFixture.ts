import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test as base } from '@playwright/test';
import { cliPath, runCli, type CliResult } from '../helpers/runCli.js';

export interface TabmuxStack {
  home: string;
  env: Record<string, string>;
  /** The dashboard link as printed (token included). */
  url: string;
  cli: (args: readonly string[]) => Promise<CliResult>;
  /** Starts a CLI command without waiting for it; resolves with its outcome later. */
  cliInBackground: (args: readonly string[]) => { done: Promise<CliResult>; finished: () => boolean };
}

/**
 * A daemon started as `tabmux daemon start` does it, one session (labelled `agent`) whose page shows `url`, and the
 * launched Chrome's pid and DevTools port, from `daemon status`.
 */
export async function startAgentOn(env: Record<string, string>, url: string): Promise<{ session: string; chrome: { pid: number; port: number } }> {
  expect((await runCli(['daemon', 'start'], env)).code).toBe(0);
  const created = await runCli(['session', 'create', '--label', 'agent'], env);
  expect(created.code, created.stderr).toBe(0);
  const session = created.stdout.trim();
  const opened = await runCli(['mcp', 'call', '--session', session, 'navigate_page', JSON.stringify({ url })], env);
  expect(opened.code, opened.stderr).toBe(0);
  const status = await runCli(['daemon', 'status', '--json'], env);
  const chrome = (JSON.parse(status.stdout) as { chrome?: { pid?: unknown; port?: unknown } }).chrome;
  expect(typeof chrome?.pid).toBe('number');
  expect(typeof chrome?.port).toBe('number');
  return { session, chrome: { pid: chrome?.pid as number, port: chrome?.port as number } };
}

export async function startDashboard(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [cliPath(), 'dashboard', '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const stdout = child.stdout;
  if (!stdout) {
    throw new Error('the dashboard has no stdout');
  }
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: stdout });
    lines.once('line', (line) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`tabmux dashboard exited early (code ${String(code)})`)));
  });
  return { child, url };
}

/**
 * One real stack per worker: a fresh TABMUX_HOME, a headless daemon started through the CLI, and `tabmux dashboard`
 * serving the built renderer. Specs drive the dashboard in Chromium and act as agents through the CLI.
 */
export const test = base.extend<object, { stack: TabmuxStack }>({
  stack: [
    // Playwright reads a fixture's dependencies from its destructuring pattern; this one has none.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const home = mkdtempSync(join(tmpdir(), 'tmx-e2e-'));
      const env = { TABMUX_HOME: home, TABMUX_HEADLESS: '1' };
      const cli = (args: readonly string[]): Promise<CliResult> => runCli(args, env);
      const started = await cli(['daemon', 'start']);
      if (started.code !== 0) {
        throw new Error(`daemon start failed: ${started.stderr}`);
      }
      const dashboard = await startDashboard(env);
      await use({
        home,
        env,
        url: dashboard.url,
        cli,
        cliInBackground: (args) => {
          let finished = false;
          const done = cli(args).finally(() => {
            finished = true;
          });
          return { done, finished: () => finished };
        },
      });
      dashboard.child.kill('SIGTERM');
      await cli(['daemon', 'stop']);
      rmSync(home, { recursive: true, force: true });
    },
    { scope: 'worker', timeout: 120_000 },
  ],
});

export { expect } from '@playwright/test';
