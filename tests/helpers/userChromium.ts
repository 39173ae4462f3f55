import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killChromeGroup } from './killedChrome.js';
import { waitUntil } from './waitFor.js';

/** A Chromium started the way a user starts one for `--browser-url`: headless here, on a temp user-data-dir. */
export interface UserChromium {
  child: ChildProcess;
  port: number;
  /** `http://127.0.0.1:PORT`, what `--browser-url` takes. */
  url: string;
  /** Whether the browser still answers HTTP discovery (`/json/version`). */
  answers: () => Promise<boolean>;
  /** Kills the browser with its helpers and removes its user-data-dir. */
  stop: () => void;
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') {
    throw new Error('could not pick a free port');
  }
  return address.port;
}

/** `port`: a given one, to bring a browser back where it was; a free one by default. */
export async function startUserChromium(port?: number): Promise<UserChromium> {
  const executable = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  port ??= await freePort();
  const userDataDir = mkdtempSync(join(tmpdir(), 'tmx-user-'));
  const args = [
    '--headless=new',
    `--remote-debugging-port=${port}`,
    `--user-data-dir=${userDataDir}`,
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--disable-gpu',
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    'about:blank',
  ];
  // Its own process group, so stopping it takes its helpers along.
  const child = spawn(executable, args, { stdio: 'ignore', detached: true });
  const url = `http://127.0.0.1:${port}`;
  const answers = (): Promise<boolean> => fetch(`${url}/json/version`).then((response) => response.ok, () => false);
  const stop = (): void => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      killChromeGroup(child.pid, userDataDir);
    }
    rmSync(userDataDir, { recursive: true, force: true });
  };
  try {
    await waitUntil(answers, `Chromium to answer on ${url}`);
  } catch (error) {
    stop();
    throw error;
  }
  return { child, port, url, answers, stop };
}
