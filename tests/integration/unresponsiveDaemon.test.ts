import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, cliDriver } from '../helpers/cliDriver.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitUntil } from '../helpers/waitFor.js';

/**
 * A daemon whose process is stopped (SIGSTOP) still has its socket taken by the kernel, but answers nothing. Every
 * command that reaches it says so after a deadline instead of waiting for ever, a shell's completion gives up on it
 * sooner, and `daemon stop` ends it and its Chrome. A separate daemon process, real Chromium.
 */

const { home, cleanup } = makeTestHome();
const { ok, json, tabmux } = cliDriver(home);
let daemonPid = 0;
let chromePid = 0;

beforeAll(async () => {
  await ok(['daemon', 'start']);
  const status = await json<{ pid: number; browser: { pid: number | null } }>(['daemon', 'status']);
  daemonPid = status.pid;
  chromePid = status.browser.pid ?? 0;
  expect(chromePid).toBeGreaterThan(0);
  process.kill(daemonPid, 'SIGSTOP');
}, 60_000);

afterAll(async () => {
  if (alive(daemonPid)) {
    process.kill(daemonPid, 'SIGCONT');
  }
  await tabmux(['daemon', 'stop']);
  cleanup();
});

describe('a daemon that takes connections but answers none', () => {
  it('is reported by the commands that reach it, after a deadline, with what ends it', async () => {
    const status = await tabmux(['daemon', 'status', '--json']);
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout)).toMatchObject({
      error: {
        code: 'daemon_unresponsive',
        message: `the daemon for profile default (pid ${daemonPid}) took this connection but did not answer within 10 s: its process is stopped or stuck; tabmux daemon stop --profile default ends it`,
      },
    });
  });

  it("costs a shell's completion no more than its own deadline", async () => {
    // Killed (code null) were it to wait on the daemon as long as a command does.
    const run = await tabmux(['__complete', '--', 'tabmux', 'mcp', 'call', '--session', ''], {}, 8_000);
    expect(run).toMatchObject({ code: 0, stdout: '' });
  });

  it('is ended by daemon stop, with its Chrome', async () => {
    const stop = await tabmux(['daemon', 'stop']);
    expect(stop.code, stop.stderr).toBe(0);
    // It could not be asked over its socket, and says so: ended by SIGTERM (it stops once continued), or killed when
    // its stop outlasted the few seconds a daemon that answers nothing is given.
    expect(stop.stdout).toMatch(/^stopped profile default \((by SIGTERM: it could not be asked over its socket|killed: it did not stop in time; its log: .*daemon\.log)\)\n$/);
    await waitUntil(() => !alive(daemonPid) && !alive(chromePid), 'the daemon and its Chrome to be gone');
    expect((await tabmux(['daemon', 'status'])).code).toBe(3);
  });
});
