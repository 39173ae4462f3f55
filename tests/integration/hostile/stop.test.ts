import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES } from '../../helpers/hostileRig.js';
import { HostileServer } from '../../helpers/hostileServer.js';

/**
 * A person logs in and stops the daemon soon after. Chrome writes cookies to disk lazily, so the stop has to close
 * the browser the way a person closing it would, and wait: the login must still be there at the next start.
 */
describe.each(TOPOLOGIES)('stopping the daemon on $name', (topology) => {
  let server: HostileServer;

  beforeAll(async () => {
    server = await HostileServer.start();
  });

  afterAll(async () => {
    await server.close();
  });

  it('keeps a cookie set just before the stop', async () => {
    const value = `v${Math.random().toString(16).slice(2)}`;
    const first = await startTestDaemon({ workers: topology.workers });
    let second: TestDaemon | undefined;
    try {
      const s = await first.session('login');
      await s.text('new_page', { url: server.page(`<script>document.cookie = 'login=${value}; max-age=86400; path=/';</script>`, 'Log in') });
      expect(await s.text('evaluate_script', { function: '() => document.cookie' })).toContain(value);
      await first.stop(true);

      second = await startTestDaemon({ workers: topology.workers }, { home: first.home });
      const back = await second.session('back');
      await back.text('new_page', { url: server.page('<p>welcome back</p>', 'Home') });
      expect(await back.text('evaluate_script', { function: '() => document.cookie' })).toContain(value);
    } finally {
      await (second ?? first).stop();
      rmSync(first.home, { recursive: true, force: true });
    }
  });
});
