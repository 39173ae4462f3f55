import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startTestDaemon, type BoundSession, type TestDaemon } from './daemonFixture.js';
import { RawConnection } from './RawConnection.js';

export interface BadClientRig {
  /** The daemon under test; set once the file's beforeAll ran. */
  readonly td: TestDaemon;
  /** A well-behaved session that must keep working whatever the bad clients do. */
  readonly good: BoundSession;
  /** A raw connection to the daemon (after a valid hello unless `hello` is false), destroyed after the test. */
  connect: (hello?: boolean) => Promise<RawConnection>;
}

/**
 * Starts a daemon for the calling file and, after every test, checks that it still answers a new client and that a
 * good session still works: whatever a bad client did must not reach anyone else. Call at the top of a describe.
 */
export function useBadClientRig(): BadClientRig {
  let td: TestDaemon | undefined;
  let good: BoundSession | undefined;
  const open: RawConnection[] = [];

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) {
      throw new Error('the bad-client daemon is not started; use the rig inside a test');
    }
    return value;
  };

  const connect = async (hello = true): Promise<RawConnection> => {
    const path = started(td).daemon.socketPath;
    const connection = hello ? await RawConnection.hello(path) : await RawConnection.open(path);
    open.push(connection);
    return connection;
  };

  beforeAll(async () => {
    td = await startTestDaemon();
    good = await td.session('good');
    expect(await good.text('take_snapshot')).toContain('RootWebArea');
  });

  afterAll(async () => {
    for (const connection of open) {
      connection.destroy();
    }
    await td?.stop();
  });

  afterEach(async () => {
    const probe = await connect();
    const status = await probe.status();
    expect(status.state).toBe('ready');
    expect(status.sessions.find((session) => session.id === started(good).id)?.owned).toBe(true);
    expect(await started(good).text('take_snapshot')).toContain('RootWebArea');
    for (const connection of open.splice(0)) {
      connection.destroy();
    }
  });

  return {
    get td() {
      return started(td);
    },
    get good() {
      return started(good);
    },
    connect,
  };
}
