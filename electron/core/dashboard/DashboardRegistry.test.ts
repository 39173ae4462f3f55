import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolvePaths } from '../platform/paths.js';
import { DashboardRegistry, dashboardsDir } from './DashboardRegistry.js';

const home = mkdtempSync(join(tmpdir(), 'tmx-reg-'));
const paths = resolvePaths({ TABMUX_HOME: home });
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('DashboardRegistry', () => {
  it('lists the ports of running dashboards until each removes its record', async () => {
    const registry = new DashboardRegistry(paths);
    expect(await registry.ports()).toEqual([]);
    const removeA = await registry.register(47_010);
    const removeB = await registry.register(47_002);
    expect(await registry.ports()).toEqual([47_002, 47_010]);
    await removeA();
    expect(await registry.ports()).toEqual([47_002]);
    await removeB();
    expect(await registry.ports()).toEqual([]);
  });

  it('ignores records of processes that are gone, records that do not parse, and records under another port', async () => {
    const registry = new DashboardRegistry(paths);
    const remove = await registry.register(47_020);
    const dir = dashboardsDir(paths);
    // A pid no process has (above the kernel's limit), as a crashed dashboard's record would name one.
    writeFileSync(join(dir, '47021.json'), JSON.stringify({ port: 47_021, pid: 2 ** 30, nonce: 'x' }));
    writeFileSync(join(dir, '47022.json'), '{ not json');
    writeFileSync(join(dir, '47023.json'), JSON.stringify({ port: 47_024, pid: process.pid, nonce: 'x' }));
    expect(await registry.ports()).toEqual([47_020]);
    await remove();
  });

  it("leaves a record another dashboard wrote since for the same port", async () => {
    const registry = new DashboardRegistry(paths);
    const removeOld = await registry.register(47_030);
    const removeNew = await registry.register(47_030);
    await removeOld();
    expect(await registry.ports()).toEqual([47_030]);
    await removeNew();
    expect(await registry.ports()).toEqual([]);
  });
});
