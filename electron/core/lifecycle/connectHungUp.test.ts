import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../../shared/protocolConstants.js';
import { pidFilePath, resolvePaths, socketPath, type TabmuxPaths } from '../platform/paths.js';
import { ClaimFile } from '../process/ClaimFile.js';
import { isDaemonRunning, tryConnect } from './daemonProcess.js';

/**
 * A daemon that stops takes no new connection, and one that reached its socket before it stopped listening is reset
 * with its hello unread. Real Unix sockets; the "daemon" resets connections as a closing listener does.
 */

let home: string;
let paths: TabmuxPaths;
let server: Server | undefined;
let claim: ClaimFile | undefined;

afterEach(async () => {
  await claim?.release();
  claim = undefined;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  rmSync(home, { recursive: true, force: true });
});

/** Listens on the profile's socket; each connection goes to `accept` (the nth, counting from 0). */
async function listen(accept: (socket: Socket, nth: number) => void): Promise<void> {
  home = mkdtempSync(join(tmpdir(), 'tmx-hup-'));
  paths = resolvePaths({ TABMUX_HOME: home });
  const path = socketPath(paths, 'default');
  mkdirSync(dirname(path), { recursive: true });
  let count = 0;
  // Paused: what a client writes stays unread until `accept` reads it, as in a daemon that never took the connection.
  server = createServer({ pauseOnConnect: true }, (socket) => accept(socket, count++));
  await new Promise<void>((resolve) => server?.listen(path, resolve));
}

/**
 * Closes the connection with the client's hello unread, as a daemon that stopped listening leaves one it had not
 * taken: the kernel resets it (a client that writes after the close is refused its write, which says the same).
 */
function hangUp(socket: Socket): void {
  setTimeout(() => socket.destroy(), 50);
}

/** Answers the hello as a daemon does. */
function answerHello(socket: Socket): void {
  socket.resume();
  socket.once('data', (chunk) => {
    const request = JSON.parse(chunk.toString('utf8').split('\n')[0] ?? '{}') as { id: number };
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { protocolVersion: PROTOCOL_VERSION, version: 'test', profile: 'default', pid: process.pid } })}\n`);
  });
}

describe('a daemon that hangs up before it reads the hello', () => {
  it('is not running once nothing holds the profile, so the caller starts another instead of failing', async () => {
    await listen(hangUp);
    expect(await tryConnect(paths, 'default')).toBeUndefined();
    // A question that must not guess (may the profile be removed?) still finds something listening there.
    await expect(isDaemonRunning(paths, 'default')).rejects.toThrow(/cannot tell whether the daemon for profile default is running/);
  });

  it('is tried again while the profile is held, and the daemon that answers then is used', async () => {
    await listen((socket, nth) => (nth === 0 ? hangUp(socket) : answerHello(socket)));
    mkdirSync(dirname(pidFilePath(paths, 'default')), { recursive: true });
    const outcome = await ClaimFile.acquire(pidFilePath(paths, 'default'), { profile: 'default' });
    expect('claim' in outcome).toBe(true);
    claim = 'claim' in outcome ? outcome.claim : undefined;
    const client = await tryConnect(paths, 'default');
    expect(client?.hello.pid).toBe(process.pid);
    client?.close();
  });
});
