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
import type { StopHow } from './unresponsiveDaemon.js';

/**
 * What the stand-ins with a socket share: `serve(onRequest)` listens on the socket path (argv[1]) and answers
 * `tabmux/hello` as a daemon of protocol argv[2] does; every other request goes to `onRequest(message)`. `sockets`
 * holds the connections.
 */
const SERVES_HELLO = `
const net = require('node:net');
const [socketPath, protocolVersion] = process.argv.slice(1);
const sockets = new Set();
function serve(onRequest) {
  return net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => {
      for (const line of chunk.toString('utf8').split('\\n').filter(Boolean)) {
        const message = JSON.parse(line);
        if (message.method === 'tabmux/hello') {
          socket.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: Number(protocolVersion), version: 't', profile: 'default', pid: process.pid } }) + '\\n');
        } else {
          onRequest(message);
        }
      }
    });
  });
}
`;

/**
 * A daemon stand-in, a process of its own holding the profile's socket: it answers the hello and then nothing, as a
 * daemon stopped or stuck right after its hello does. SIGTERM ends it (Node's default).
 */
const SILENT_AFTER_HELLO = `${SERVES_HELLO}
serve(() => {}).listen(socketPath, () => process.stdout.write('listening\\n'));
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

/**
 * A daemon stand-in that answers its hello and, asked to stop, closes its socket and every connection as a stopping
 * daemon does first; with `exits` (argv[3]) it then exits, otherwise it stays, deaf to SIGTERM, as one stuck in its
 * stop would.
 */
const CLOSES_WHEN_ASKED = `${SERVES_HELLO}
const mode = process.argv[3];
process.on('SIGTERM', () => process.stdout.write('term\\n'));
setInterval(() => {}, 1000);
const server = serve((message) => {
  if (message.method === 'tabmux/stop') {
    server.close();
    for (const each of sockets) each.destroy();
    if (mode === 'exits') setTimeout(() => process.exit(0), 200);
  }
});
server.listen(socketPath, () => process.stdout.write('listening\\n'));
`;

/**
 * A daemon stand-in that holds the profile with no socket for a moment, as a starting daemon does, then opens it,
 * answers its hello, and on `tabmux/stop` prints what it was asked (`stop {params}`) and exits. SIGTERM: `term`.
 */
const LATE_SOCKET = `${SERVES_HELLO}
process.on('SIGTERM', () => { process.stdout.write('term\\n'); process.exit(0); });
process.stdout.write('holding\\n');
setTimeout(() => serve((message) => {
  if (message.method === 'tabmux/stop') {
    process.stdout.write('stop ' + JSON.stringify(message.params ?? {}) + '\\n');
    setTimeout(() => process.exit(0), 100);
  }
}).listen(socketPath), 1000);
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

interface StandIn {
  paths: ReturnType<typeof resolvePaths>;
  child: ChildProcess;
  /** The lines it printed: `term` each time it was sent SIGTERM. */
  said: string[];
  /** The signal it exited on, null when it exited by itself. */
  exited: Promise<NodeJS.Signals | null>;
}

/**
 * A stand-in daemon (a Node script, given its arguments and the profile's socket path) in a fresh home, named the
 * profile's holder in its pid file once it printed its first line.
 */
async function holdingProfile(nodeArgs: (socket: string) => string[]): Promise<StandIn> {
  const home = mkdtempSync(join(tmpdir(), 'tmx-stop-'));
  homes.push(home);
  const paths = resolvePaths({ TABMUX_HOME: home });
  const socket = socketPath(paths, 'default');
  mkdirSync(dirname(socket), { recursive: true });
  const child = spawn(process.execPath, ['-e', ...nodeArgs(socket)], { stdio: ['ignore', 'pipe', 'inherit'] });
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
}

/** The stop sent the stand-in SIGTERM, which it ignored, then killed it, and says so. */
async function expectKilledAfterTerm(standIn: StandIn, stop: Promise<StopHow | undefined>): Promise<void> {
  expect(await stop).toBe('killed');
  expect(await standIn.exited).toBe('SIGKILL');
  expect(standIn.said).toContain('term');
  expect(isProcessAlive(standIn.child.pid ?? 0)).toBe(false);
}

describe('stopDaemon', () => {
  it('ends a daemon that answers its hello and then nothing, by its pid, within its deadline', async () => {
    const { paths, child, exited } = await holdingProfile((path) => [SILENT_AFTER_HELLO, path, String(PROTOCOL_VERSION)]);
    expect(await stopDaemon(paths, 'default', 1_000)).toBe('signalled');
    expect(await exited).toBe('SIGTERM');
    expect(isProcessAlive(child.pid ?? 0)).toBe(false);
  });

  describe('a daemon asked over its socket', () => {
    const answering = (mode: 'exits' | 'stays'): Promise<StandIn> => holdingProfile((path) => [CLOSES_WHEN_ASKED, path, String(PROTOCOL_VERSION), mode]);

    it('says it stopped as asked, once it is gone', async () => {
      const { paths, child, said, exited } = await answering('exits');
      expect(await stopDaemon(paths, 'default', 5_000)).toBe('asked');
      expect(isProcessAlive(child.pid ?? 0)).toBe(false);
      expect(await exited).toBeNull();
      expect(said).not.toContain('term');
    });

    it('ends one that closed its connections but is still running at the deadline, and says it was killed', async () => {
      const standIn = await answering('stays');
      // Not left running behind a "stopped".
      await expectKilledAfterTerm(standIn, stopDaemon(standIn.paths, 'default', 1_000));
    });
  });

  it('waits, in a stop that keeps the browser (a restart), for a starting daemon to open its socket, then asks it', async () => {
    const { paths, child, said, exited } = await holdingProfile((path) => [LATE_SOCKET, path, String(PROTOCOL_VERSION)]);
    expect(await stopDaemon(paths, 'default', 10_000, { keepBrowser: true })).toBe('asked');
    expect(await exited).toBeNull();
    expect(isProcessAlive(child.pid ?? 0)).toBe(false);
    // Asked to leave its browser, not sent SIGTERM, on which it would have closed it.
    expect(said).toEqual(['holding', 'stop {"keepBrowser":true}']);
  });

  describe('a daemon that holds the profile with no socket to ask it by (starting, or stopping)', () => {
    const holding = (mode: 'hears' | 'deaf'): Promise<StandIn> => holdingProfile(() => [SOCKETLESS, mode]);

    it('is asked by SIGTERM, as a stop would ask it, and waited for', async () => {
      const { paths, child, said, exited } = await holding('hears');
      expect(await stopDaemon(paths, 'default', 10_000)).toBe('signalled');
      // Returned once it is gone, not before: it left on its own after SIGTERM, not killed.
      expect(isProcessAlive(child.pid ?? 0)).toBe(false);
      expect(await exited).toBeNull();
      expect(said).toContain('term');
      // Noted, so a tray watching it takes its going for a stop, not a crash.
      expect(await stopWasRequested(paths, 'default', child.pid ?? 0)).toBe(true);
    });

    it('is killed when it does not go within the deadline', async () => {
      const standIn = await holding('deaf');
      await expectKilledAfterTerm(standIn, stopDaemon(standIn.paths, 'default', 1_000));
    });

    it('is not there when the pid file names a process that is gone', async () => {
      const { paths, child, exited } = await holding('hears');
      child.kill('SIGKILL');
      await exited;
      expect(await stopDaemon(paths, 'default', 1_000)).toBeUndefined();
    });
  });
});
