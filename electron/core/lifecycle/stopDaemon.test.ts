import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../../shared/protocolConstants.js';
import { pidFilePath, resolvePaths, socketPath } from '../platform/paths.js';
import { inspectProcess } from '../process/processState.js';
import { isProcessAlive } from '../process/processes.js';
import { stopWasRequested } from './stopRequest.js';
import { stopDaemon } from './stopDaemon.js';

/**
 * A daemon stand-in, a process of its own holding the profile's socket: it answers the hello and then nothing, as a
 * daemon stopped or stuck right after its hello does. SIGTERM ends it (Node's default).
 */
const SILENT_AFTER_HELLO = `
const net = require('node:net');
const [path, version] = process.argv.slice(1);
net.createServer((socket) => {
  socket.on('data', (chunk) => {
    for (const line of chunk.toString('utf8').split('\\n').filter(Boolean)) {
      const message = JSON.parse(line);
      if (message.method === 'tabmux/hello') {
        socket.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: Number(version), version: 't', profile: 'default', pid: process.pid } }) + '\\n');
      }
    }
  });
}).listen(path, () => process.stdout.write('listening\\n'));
`;

/**
 * A daemon stand-in that holds the profile's pid file and no socket, as a daemon starting (before its Chrome runs) or
 * stopping (its socket closed first) does. On SIGTERM it says so and exits a little later, as a daemon's stop does;
 * with `deaf` it ignores SIGTERM, as one stuck in its stop would.
 */
const SOCKETLESS = `
const deaf = process.argv[1] === 'deaf';
process.on('SIGTERM', () => {
  process.stdout.write('term\\n');
  if (!deaf) setTimeout(() => process.exit(0), 300);
});
setInterval(() => {}, 1000);
process.stdout.write('holding\\n');
`;

const homes: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
  }
  for (const home of homes.splice(0)) {
    rmSync(home, { recursive: true, force: true });
  }
});

describe('stopDaemon', () => {
  it('ends a daemon that answers its hello and then nothing, by its pid, within its deadline', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tmx-stop-'));
    homes.push(home);
    const paths = resolvePaths({ TABMUX_HOME: home });
    const path = socketPath(paths, 'default');
    mkdirSync(dirname(path), { recursive: true });
    const child = spawn(process.execPath, ['-e', SILENT_AFTER_HELLO, path, String(PROTOCOL_VERSION)], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
    const pid = child.pid ?? 0;
    mkdirSync(dirname(pidFilePath(paths, 'default')), { recursive: true });
    writeFileSync(pidFilePath(paths, 'default'), JSON.stringify({ pid, identity: inspectProcess(pid).identity, nonce: 'aaaaaaaaaaaaaaaa' }));

    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    expect(await stopDaemon(paths, 'default', 1_000)).toBe(true);
    await exited;
    expect(isProcessAlive(pid)).toBe(false);
  });

  describe('a daemon that holds the profile with no socket to ask it by (starting, or stopping)', () => {
    const holding = async (mode: 'hears' | 'deaf'): Promise<{ paths: ReturnType<typeof resolvePaths>; child: ChildProcess; said: string[]; exited: Promise<NodeJS.Signals | null> }> => {
      const home = mkdtempSync(join(tmpdir(), 'tmx-stop-'));
      homes.push(home);
      const paths = resolvePaths({ TABMUX_HOME: home });
      const child = spawn(process.execPath, ['-e', SOCKETLESS, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      const said: string[] = [];
      const ready = new Promise<void>((resolve) => child.stdout?.on('data', (chunk: Buffer) => {
        said.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        resolve();
      }));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
      await ready;
      const pid = child.pid ?? 0;
      mkdirSync(dirname(pidFilePath(paths, 'default')), { recursive: true });
      writeFileSync(pidFilePath(paths, 'default'), JSON.stringify({ pid, identity: inspectProcess(pid).identity, nonce: 'aaaaaaaaaaaaaaaa' }));
      return { paths, child, said, exited };
    };

    it('is asked by SIGTERM, as a stop would ask it, and waited for', async () => {
      const { paths, child, said, exited } = await holding('hears');
      expect(await stopDaemon(paths, 'default', 10_000)).toBe(true);
      // Returned once it is gone, not before: it left on its own after SIGTERM, not killed.
      expect(isProcessAlive(child.pid ?? 0)).toBe(false);
      expect(await exited).toBeNull();
      expect(said).toContain('term');
      // Noted, so a tray watching it takes its going for a stop, not a crash.
      expect(await stopWasRequested(paths, 'default', child.pid ?? 0)).toBe(true);
    });

    it('is killed when it does not go within the deadline', async () => {
      const { paths, child, said, exited } = await holding('deaf');
      expect(await stopDaemon(paths, 'default', 1_000)).toBe(true);
      expect(await exited).toBe('SIGKILL');
      expect(said).toContain('term');
      expect(isProcessAlive(child.pid ?? 0)).toBe(false);
    });

    it('is not there when the pid file names a process that is gone', async () => {
      const { paths, child, exited } = await holding('hears');
      child.kill('SIGKILL');
      await exited;
      expect(await stopDaemon(paths, 'default', 1_000)).toBe(false);
    });
  });
});
