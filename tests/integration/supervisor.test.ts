import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { DashboardServer } from '../../electron/core/dashboard/DashboardServer.js';
import { Supervisor } from '../../electron/core/supervisor/Supervisor.js';
import { SupervisorService } from '../../electron/core/supervisor/SupervisorService.js';
import { profileLogFile, socketPath, type TabmuxPaths } from '../../electron/core/platform/paths.js';
import { isProcessAlive } from '../../electron/core/process/processes.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import type { ProfileView, SupervisorEvent } from '../../shared/supervisor.js';
import { isRecord } from '../../shared/isRecord.js';
import { runCli } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor as until } from '../helpers/waitFor.js';

let env: Record<string, string>;
let paths: TabmuxPaths;
let cleanup: () => void;
let supervisor: Supervisor;
const events: SupervisorEvent[] = [];
const savedEnv = { home: process.env['TABMUX_HOME'], headless: process.env['TABMUX_HEADLESS'] };

beforeAll(async () => {
  const home = makeTestHome();
  env = { ...home.env, TABMUX_HEADLESS: '1' };
  paths = home.paths;
  cleanup = home.cleanup;
  // The supervisor spawns daemons with this process's environment.
  process.env['TABMUX_HOME'] = env['TABMUX_HOME'];
  process.env['TABMUX_HEADLESS'] = '1';
  const started = await runCli(['daemon', 'start'], env);
  expect(started.code, started.stderr).toBe(0);
  supervisor = new Supervisor({ paths, pollIntervalMs: 300, answerWithinMs: 3000, restart: { baseDelayMs: 200 } });
  supervisor.onEvent((event) => events.push(event));
  await supervisor.start();
});

afterAll(async () => {
  await supervisor.dispose({ stopDaemons: true });
  cleanup();
  restoreEnv('TABMUX_HOME', savedEnv.home);
  restoreEnv('TABMUX_HEADLESS', savedEnv.headless);
});

function restoreEnv(name: 'TABMUX_HOME' | 'TABMUX_HEADLESS', value: string | undefined): void {
  if (value === undefined) {
    Reflect.deleteProperty(process.env, name);
  } else {
    process.env[name] = value;
  }
}


function profileEvents(): ProfileView[] {
  return events.flatMap((event) => (event.type === 'profile' && event.profile.name === 'default' ? [event.profile] : []));
}

describe('supervisor', () => {
  it('sees a daemon started by the CLI and merges a session an agent created through the CLI', async () => {
    const snapshot = await supervisor.snapshot();
    const view = snapshot.profiles.find((profile) => profile.name === 'default');
    expect(view?.state).toBe('ready');
    expect(view?.status?.profile).toBe('default');

    const created = await runCli(['session', 'create', '--label', 'cli-agent'], env);
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.trim();
    const pushed = await until(
      () => events.find((event) => event.type === 'daemon' && event.event.type === 'session.updated' && event.event.session.id === id),
      'the session event',
    );
    expect(pushed.type).toBe('daemon');
    const merged = supervisor.view('default').status?.sessions.find((session) => session.id === id);
    expect(merged?.label).toBe('cli-agent');
  });

  it('stops and starts a profile', async () => {
    events.length = 0;
    const stopping = await supervisor.stopProfile('default');
    expect(stopping.state).toBe('stopping');
    await until(() => (supervisor.view('default').state === 'stopped' ? true : undefined), 'stopped');
    expect(supervisor.view('default').status).toBeNull();
    // Stopped as asked: nothing to tell.
    expect(supervisor.view('default').lastError).toBeNull();
    expect((await runCli(['daemon', 'status'], env)).code).toBe(3);

    const starting = await supervisor.startProfile('default');
    expect(starting.state).toBe('starting');
    const ready = await until(() => (supervisor.view('default').state === 'ready' ? supervisor.view('default') : undefined), 'ready');
    expect(ready.status?.state).toBe('ready');
    // Started from the tray or the dashboard, it stays until it is stopped: it never exits idle.
    expect(ready.status?.lifetime).toMatchObject({ startedBy: 'app', idleExitMs: null });
    expect(profileEvents().map((view) => view.state)).toEqual(['stopping', 'stopped', 'starting', 'ready']);
  });

  it('marks a daemon it started that was killed as crashed and restarts it', async () => {
    const pid = supervisor.view('default').status?.pid;
    expect(pid).toBeTypeOf('number');
    events.length = 0;
    process.kill(pid ?? 0, 'SIGKILL');
    const crashed = await until(() => profileEvents().find((view) => view.state === 'crashed'), 'crashed');
    expect(crashed.lastError).toContain('exited unexpectedly');
    await until(() => profileEvents().find((view) => view.state === 'restarting'), 'restarting');
    const back = await until(() => (supervisor.view('default').state === 'ready' ? supervisor.view('default') : undefined), 'ready again', 60_000);
    expect(back.status?.pid).not.toBe(pid);
  });

  it('forwards daemon calls and refuses bad params at the boundary', async () => {
    const service = new SupervisorService(supervisor);
    const session = await service.dispatch('supervisor/daemon', { profile: 'default', method: 'tabmux/session.create', params: { label: 'ui' } });
    expect(session).toMatchObject({ label: 'ui' });
    await expect(service.dispatch('supervisor/daemon', { profile: 'default', method: 'tabmux/stop' })).rejects.toMatchObject({ code: 'invalid_params' });
    await expect(service.dispatch('supervisor/profile.start', { profile: '../etc' })).rejects.toMatchObject({ code: 'invalid_params' });
    await expect(service.dispatch('supervisor/nope', {})).rejects.toMatchObject({ code: 'unknown_method' });
  });

  it('says when a watched daemon stops answering, and when it answers again', async () => {
    const pid = supervisor.view('default').status?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    // Stopped, the daemon keeps its connection open and pushes nothing, as a quiet one does.
    process.kill(pid, 'SIGSTOP');
    // A person's action already on its way when the daemon stopped.
    const inFlight = supervisor.forward('default', 'tabmux/session.list', {});
    inFlight.catch(() => undefined);
    try {
      const stuck = await until(() => {
        const view = supervisor.view('default');
        return view.lastError?.includes('does not answer') === true ? view : undefined;
      }, 'the profile to say its daemon does not answer');
      expect(stuck.lastError).toBe(`the daemon (pid ${pid}) does not answer: its process is stopped or stuck; Stop ends it`);
      expect(stuck.unanswered).toBe(true);
      // It fails once the daemon is found not to answer, with the reason, rather than waiting for the daemon.
      await expect(inFlight).rejects.toMatchObject({
        code: 'daemon_unresponsive',
        message: `profile default: the daemon (pid ${pid}) does not answer: its process is stopped or stuck; Stop ends it`,
      });
      // What a person asks of it meanwhile is refused at once, with the reason, rather than left spinning.
      await expect(supervisor.forward('default', 'tabmux/session.list', {})).rejects.toMatchObject({
        code: 'daemon_unresponsive',
        message: `profile default: the daemon (pid ${pid}) does not answer: its process is stopped or stuck; Stop ends it`,
      });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await until(() => (supervisor.view('default').lastError === null ? true : undefined), 'the profile to clear it once the daemon answers');
    expect(supervisor.view('default')).toMatchObject({ state: 'ready', unanswered: false, status: { pid } });
    expect(await supervisor.forward('default', 'tabmux/session.list', {})).toBeDefined();
  });

  it('hands live pictures only to the window that watches, and takes input only from its live view while the session is paused', async () => {
    const service = new SupervisorService(supervisor);
    const created = await service.dispatch('supervisor/daemon', { profile: 'default', method: 'tabmux/session.create', params: { label: 'watched' } });
    const session = isRecord(created) && typeof created['id'] === 'string' ? created['id'] : '';
    await service.dispatch('supervisor/daemon', { profile: 'default', method: 'tabmux/session.newPage', params: { session, url: 'data:text/html,<body style="background:teal">' } });
    const listed = await service.dispatch('supervisor/daemon', { profile: 'default', method: 'tabmux/tabs.list', params: {} });
    const tabs = isRecord(listed) && Array.isArray(listed['tabs']) ? listed['tabs'] : [];
    const tab: unknown = tabs.find((candidate: unknown) => isRecord(candidate) && candidate['owner'] === session);
    const tabId = isRecord(tab) && typeof tab['tabId'] === 'string' ? tab['tabId'] : '';
    expect(tabId).not.toBe('');
    const seenByA: SupervisorEvent[] = [];
    const seenByB: SupervisorEvent[] = [];
    const a = { id: 'window-a', push: (event: SupervisorEvent) => seenByA.push(event) };
    const b = { id: 'window-b', push: (event: SupervisorEvent) => seenByB.push(event) };
    events.length = 0;
    await expect(service.dispatch('supervisor/pictures.watch', { profile: 'default', tabs: [{ tabId }] })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await service.dispatch('supervisor/pictures.watch', { profile: 'default', tabs: [{ tabId, size: 'thumb' }] }, a)).toEqual({ watching: [tabId] });
    await service.dispatch('supervisor/pictures.watch', { profile: 'default', tabs: [] }, b);
    const frame = await until(() => seenByA.find((event) => event.type === 'picture'), 'a frame for the watching window');
    expect(frame).toMatchObject({ type: 'picture', profile: 'default', picture: { tabId } });
    expect(seenByB).toEqual([]);
    // Nothing of it reaches the events every window gets.
    expect(events.filter((event) => event.type === 'picture' || (event.type === 'daemon' && event.event.type === 'picture'))).toEqual([]);

    const click = { kind: 'mouse', type: 'mousePressed', x: 5, y: 5, button: 'left', clickCount: 1 } as const;
    const input = (viewer: typeof a) => service.dispatch('supervisor/pictures.input', { profile: 'default', tabId, input: click }, viewer);
    await expect(input(a)).rejects.toMatchObject({ code: 'invalid_request' });
    await service.dispatch('supervisor/pictures.watch', { profile: 'default', tabs: [{ tabId, size: 'live' }] }, a);
    await expect(input(b)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(input(a)).rejects.toMatchObject({ code: 'page_conflict' });
    await service.dispatch('supervisor/daemon', { profile: 'default', method: 'tabmux/session.pause', params: { session } });
    expect(await input(a)).toEqual({ sent: true });
    await service.dropViewer('window-a');
    await expect(input(a)).rejects.toMatchObject({ code: 'invalid_request' });
    // An agent's connection, bound to the very session, is refused even while it is paused.
    const agent = await DaemonClient.connect(socketPath(paths, 'default'), 'agent');
    try {
      await agent.call('tabmux/session.bind', { session });
      await agent.call('tabmux/pictures.watch', { tabs: [{ tabId, size: 'live' }] });
      await expect(agent.call('tabmux/pictures.input', { tabId, input: click })).rejects.toMatchObject({ code: 'invalid_request' });
    } finally {
      agent.close();
    }
    await service.dispatch('supervisor/daemon', { profile: 'default', method: 'tabmux/session.close', params: { session } });
  });

  it('sees a daemon that was stuck before it started without waiting on it, and Stop ends that daemon', async () => {
    const pid = supervisor.view('default').status?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    const browser = supervisor.view('default').status?.browser;
    const chromePid = browser?.kind === 'launched' ? (browser.pid ?? 0) : 0;
    expect(chromePid).toBeGreaterThan(0);
    process.kill(pid, 'SIGSTOP');
    // Its Chrome is stuck too, so the daemon, once continued, cannot close it in time and is killed, leaving its pid file.
    process.kill(chromePid, 'SIGSTOP');
    // A tray or dashboard opened now: the daemon takes its connection and says nothing.
    const late = new Supervisor({ paths, pollIntervalMs: 300, answerWithinMs: 1000 });
    try {
      await late.start();
      const stuck = await until(() => (late.view('default').unanswered ? late.view('default') : undefined), 'the profile to say its daemon does not answer');
      expect(stuck.lastError).toBe(`the daemon (pid ${pid}) does not answer: its process is stopped or stuck; Stop ends it`);
      expect(stuck.status).toBeNull();
      // Other profiles and snapshots go on meanwhile; Start is no use, and Stop ends the stuck daemon and its Chrome.
      expect((await late.snapshot()).profiles.find((profile) => profile.name === 'default')?.unanswered).toBe(true);
      expect((await late.startProfile('default')).unanswered).toBe(true);
      expect((await late.stopProfile('default')).state).toBe('stopping');
      const stopped = await until(() => (late.view('default').state === 'stopped' ? late.view('default') : undefined), 'the stuck daemon stopped', 30_000);
      expect(stopped).toMatchObject({ unanswered: false, status: null });
      // It could not be asked over its socket, and its Chrome, stuck as well, may have kept it past its SIGTERM: the
      // profile tells which, as `daemon stop` does.
      expect([
        'stopped profile default (by SIGTERM: it could not be asked over its socket)',
        `stopped profile default (killed: it did not stop in time; its log: ${profileLogFile(paths, 'default')})`,
      ]).toContain(stopped.lastError);
      expect(isProcessAlive(pid)).toBe(false);
      expect((await runCli(['daemon', 'status'], env)).code).toBe(3);
    } finally {
      for (const stuck of [pid, chromePid]) {
        try {
          process.kill(stuck, 'SIGCONT');
        } catch {
          // Ended, as it should be.
        }
      }
      await late.dispose();
    }
    // The watching supervisor, which started that daemon, saw it stopped (not crashed, and not started again), though it
    // was killed before it could remove its pid file; it starts again for what follows.
    await until(() => (supervisor.view('default').state === 'stopped' ? true : undefined), () => `the first supervisor to see it stopped (it says ${supervisor.view('default').state})`);
    await supervisor.startProfile('default');
    await until(() => (supervisor.view('default').state === 'ready' ? true : undefined), 'ready again', 60_000);
  });
});

describe('dashboard server', () => {
  let server: DashboardServer;
  let rendererDir: string;

  beforeAll(async () => {
    rendererDir = mkdtempSync(join(tmpdir(), 'tmx-ui-'));
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>tabmux</title>');
    server = await DashboardServer.start({ service: new SupervisorService(supervisor), paths, rendererDir, port: 0 });
  });

  afterAll(async () => {
    await server.close();
    rmSync(rendererDir, { recursive: true, force: true });
  });

  function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  function openSocket(query: string, headers: Record<string, string> = {}): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws${query}`, { headers });
      socket.once('open', () => resolve(socket));
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode ?? 0}`)));
      socket.once('error', reject);
    });
  }

  it('refuses a socket without the token, with a wrong token or only a cookie, and any request from a foreign Origin or with a bad Host', async () => {
    const token = encodeURIComponent(server.token);
    expect((await get('/', { origin: 'http://evil.example' })).status).toBe(403);
    expect((await get('/', { host: `rebound.example:${server.port}` })).status).toBe(403);
    await expect(openSocket('')).rejects.toThrow(/403/);
    await expect(openSocket('?token=wrong')).rejects.toThrow(/403/);
    await expect(openSocket('', { cookie: `tabmux_token_${server.port}=${server.token}` })).rejects.toThrow(/403/);
    await expect(openSocket(`?token=${token}`, { origin: 'http://evil.example' })).rejects.toThrow(/403/);
    await expect(openSocket(`?token=${token}`, { host: `rebound.example:${server.port}` })).rejects.toThrow(/403/);
  });

  it('serves the page, which holds no data, with a strict CSP and no cookie; its link carries the token in the fragment', async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/#token=${server.token}`);
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>tabmux</title>');
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(page.headers['set-cookie']).toBeUndefined();
    expect((await get(`/?token=${encodeURIComponent(server.token)}`)).headers['set-cookie']).toBeUndefined();
    expect((await get('/../package.json')).status).toBe(404);
  });

  it('answers a snapshot over the WebSocket and pushes events', async () => {
    const socket = await openSocket(`?token=${encodeURIComponent(server.token)}`, { origin: `http://127.0.0.1:${server.port}` });
    const messages: unknown[] = [];
    socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8'))));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'supervisor/snapshot', params: {} }));
    const reply = await until(() => messages.find((message) => typeof message === 'object' && message !== null && 'id' in message && message.id === 1), 'the reply', 10_000);
    expect(JSON.stringify(reply)).toContain('"name":"default"');
    await runCli(['session', 'create', '--label', 'pushed'], env);
    await until(() => messages.find((message) => JSON.stringify(message).includes('"label":"pushed"')), 'a pushed event', 10_000);
    socket.close();
  });
});
