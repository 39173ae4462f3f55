import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRecord } from '../../../shared/isRecord.js';
import { PROTOCOL_VERSION } from '../../../shared/protocolConstants.js';
import { resolvePaths, socketPath, type TabmuxPaths } from '../platform/paths.js';
import { DaemonWatch } from './DaemonWatch.js';

const homes: string[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    await new Promise((resolve) => server.close(resolve));
  }
  for (const home of homes.splice(0)) {
    rmSync(home, { recursive: true, force: true });
  }
});

function testPaths(): TabmuxPaths {
  const home = mkdtempSync(join(tmpdir(), 'tmx-dw-'));
  homes.push(home);
  return resolvePaths({ TABMUX_HOME: home });
}

/**
 * A daemon stand-in on the profile's socket that reads every request and answers only the hello (pid 4242), or
 * nothing at all: a daemon stopped right after its hello, or before it.
 */
async function silentDaemon(paths: TabmuxPaths, answersHello: boolean): Promise<void> {
  const path = socketPath(paths, 'default');
  mkdirSync(dirname(path), { recursive: true });
  const server = createServer((socket: Socket) => {
    socket.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter((text) => text !== '')) {
        const message: unknown = JSON.parse(line);
        if (answersHello && isRecord(message) && message['method'] === 'tabmux/hello') {
          const result = { protocolVersion: PROTOCOL_VERSION, version: 't', profile: 'default', pid: 4242 };
          socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: message['id'], result })}\n`);
        }
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

function open(paths: TabmuxPaths): ReturnType<typeof DaemonWatch.open> {
  return DaemonWatch.open({ paths, profile: 'default', answerWithinMs: 300, onEvent: () => undefined, onClose: () => undefined });
}

describe('DaemonWatch.open', () => {
  it('finds no daemon where nothing listens', async () => {
    expect(await open(testPaths())).toBeUndefined();
  });

  it('reports a daemon that takes the connection but never answers its hello', async () => {
    const paths = testPaths();
    await silentDaemon(paths, false);
    expect(await open(paths)).toEqual({ unanswered: 'the daemon does not answer: its process is stopped or stuck; Stop ends it' });
  });

  it('reports a daemon that answers its hello and then nothing, by the pid it gave', async () => {
    const paths = testPaths();
    await silentDaemon(paths, true);
    expect(await open(paths)).toEqual({ unanswered: 'the daemon (pid 4242) does not answer: its process is stopped or stuck; Stop ends it' });
  });
});
