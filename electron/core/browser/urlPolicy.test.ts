import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { USER_FILES, type FileScope } from './fileAccess.js';
import { createUrlPolicy } from './urlPolicy.js';

const home = mkdtempSync(join(tmpdir(), 'tabmux-policy-'));
const config = join(home, 'config');
const elsewhere = join(home, 'elsewhere');
mkdirSync(config, { recursive: true });
mkdirSync(elsewhere, { recursive: true });
symlinkSync(config, join(elsewhere, 'link'));
const policy = createUrlPolicy({ debuggingPort: 45_123, protectedRoots: [config] });

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('createUrlPolicy', () => {
  it("refuses the DevTools port under every spelling of the host", () => {
    for (const url of [
      'http://127.0.0.1:45123/json/list',
      'http://127.1:45123/json/close/ABC',
      'http://0x7f000001:45123/json',
      'http://2130706433:45123/',
      'http://localhost.:45123/json/version',
      'http://[::1]:45123/',
      'HTTP://LOCALHOST:45123/devtools/inspector.html',
      'ws://127.0.0.1:45123/devtools/browser/x',
    ]) {
      expect(policy.requestRefusal(url), url).toBeDefined();
      expect(policy.navigationRefusal(url), url).toBeDefined();
    }
    expect(policy.requestRefusal('http://127.0.0.1:45124/')).toBeUndefined();
  });

  it("refuses tabmux's folders through file:, however the path is written", () => {
    for (const url of [
      `file://${config}/profiles.json`,
      `FILE://${config}/profiles.json`,
      `file://${config}/%2e%2e/config/profiles.json`,
      `file://${elsewhere}/%6cink/profiles.json`,
      `file://${elsewhere}/link/profiles.json`,
      `view-source:file://${config}/profiles.json`,
    ]) {
      expect(policy.navigationRefusal(url, USER_FILES), url).toBeDefined();
    }
    expect(policy.navigationRefusal(`file://${elsewhere}/page.html`, USER_FILES)).toBeUndefined();
  });

  it('decides file: URLs by whose tab asks, and reads no files for a tab of nobody', () => {
    const own: FileScope = { kind: 'session', folder: elsewhere };
    for (const url of [`file://${elsewhere}/page.html`, `view-source:file://${elsewhere}/page.html`, ` FILE://${elsewhere}/`]) {
      expect(policy.readsFile(url), url).toBe(true);
      expect(policy.navigationRefusal(url, own), url).toBeUndefined();
      expect(policy.requestRefusal(url.trim().replace(/^view-source:/, '')), url).toBeDefined();
    }
    for (const url of [`file://${elsewhere}/link/profiles.json`, 'file:///proc/self/fd/0', 'view-source:file:///dev/fd/0']) {
      expect(policy.navigationRefusal(url, own), url).toBeDefined();
    }
    expect(policy.readsFile('https://example.com/file:///x')).toBe(false);
    expect(policy.readsFile('view-source:https://example.com/')).toBe(false);
  });

  it("refuses the browser's own pages and lets the web through", () => {
    for (const url of ['chrome://inspect', 'chrome://process-internals/', 'devtools://devtools/bundled/inspector.html', 'chrome-untrusted://x/', 'view-source:chrome://inspect', 'view-source:http://127.0.0.1:45123/json/list']) {
      expect(policy.navigationRefusal(url), url).toBeDefined();
    }
    for (const url of ['https://example.com/', 'about:blank', 'data:text/html,hi', 'chrome://newtab/', 'http://localhost:8080/app']) {
      expect(policy.navigationRefusal(url), url).toBeUndefined();
    }
  });

  it("refuses tabmux's dashboards, as they come and go, under every spelling of the host", () => {
    const dashboards = new Set([47_001]);
    const guarded = createUrlPolicy({ debuggingPort: 45_123, protectedRoots: [config], dashboardPorts: () => dashboards });
    for (const url of ['http://127.0.0.1:47001/', 'http://127.1:47001/#token=x', 'http://0x7f000001:47001/assets/a.js', 'http://localhost.:47001/', 'ws://[::1]:47001/ws', 'view-source:http://127.0.0.1:47001/']) {
      expect(guarded.navigationRefusal(url), url).toBeDefined();
    }
    expect(guarded.requestRefusal('http://127.0.0.1:47002/')).toBeUndefined();
    dashboards.add(80);
    expect(guarded.requestRefusal('http://localhost/')).toBeDefined();
    expect(guarded.requestRefusal('https://localhost/')).toBeUndefined();
    dashboards.clear();
    expect(guarded.requestRefusal('http://127.0.0.1:47001/')).toBeUndefined();
  });
});
