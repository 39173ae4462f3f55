import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { thirdPartyFile } from './thirdParty.js';
import { freePort } from './userChromium.js';
import { waitUntil } from './waitFor.js';

export interface BrowserlessServer {
  /** `http://127.0.0.1:PORT` */
  httpUrl: string;
  port: number;
  token: string;
  /** Its browsers, as its `/sessions` lists them (one row per browser and per page). */
  sessions: () => Promise<{ id: string; browserId?: string; type: string }[]>;
  stop: () => Promise<void>;
}

/** browserless, installed in tests/thirdParty (see tests/helpers/thirdParty.ts): it declares Node 24. */
const browserlessPackage = thirdPartyFile('@browserless.io/browserless/package.json');

/**
 * Starts a real browserless server on loopback (the `@browserless.io/browserless` package, with the system
 * Chromium), in a process of its own. `settings` are browserless's own environment settings, such as CONCURRENT.
 */
export async function startBrowserless(token: string, settings: Record<string, string> = {}): Promise<BrowserlessServer> {
  // Says how to install it when it is missing, rather than a module error from the server's own process.
  browserlessPackage();
  const port = await freePort();
  const browsersDir = mkdtempSync(join(tmpdir(), 'tmx-browserless-'));
  const child: ChildProcess = spawn(process.execPath, [join(import.meta.dirname, 'browserlessServer.mjs')], {
    env: { ...process.env, TOKEN: token, PORT: String(port), HOST: '127.0.0.1', BROWSERS_DIR: browsersDir, DEBUG: '-*', ...settings, TMPDIR: browsersDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const httpUrl = `http://127.0.0.1:${port}`;
  await waitUntil(() => {
    if (child.exitCode !== null) {
      throw new Error(`browserless exited early:\n${output}`);
    }
    return output.includes('READY');
  }, 'browserless to listen');
  return {
    httpUrl,
    port,
    token,
    sessions: async () => (await (await fetch(`${httpUrl}/sessions?token=${token}`)).json()) as { id: string; browserId?: string; type: string }[],
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
        if (child.exitCode === null) {
          child.kill('SIGKILL');
        }
      }
      rmSync(browsersDir, { recursive: true, force: true });
    },
  };
}
