import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../../shared/protocolConstants.js';
import { pidFilePath, resolvePaths, socketPath } from '../platform/paths.js';
import { inspectProcess } from '../process/processState.js';
import { isProcessAlive } from '../process/processes.js';
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
});
