import { describe, expect, it } from 'vitest';
import { daemonEnv, restoreUserMallocEnv } from './daemonEnv.js';

describe('daemonEnv', () => {
  it('keeps the caller environment, runs an Electron binary as Node and sets malloc for a long-lived process', () => {
    const env = daemonEnv({ PATH: '/usr/bin', TABMUX_HOME: '/tmp/home' });
    expect(env).toEqual({
      PATH: '/usr/bin',
      TABMUX_HOME: '/tmp/home',
      ELECTRON_RUN_AS_NODE: '1',
      GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2',
      TABMUX_GLIBC_TUNABLES_BEFORE: '',
    });
  });

  it("adds to the user's own tunables", () => {
    expect(daemonEnv({ GLIBC_TUNABLES: 'glibc.malloc.tcache_count=0' })['GLIBC_TUNABLES']).toBe(
      'glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2',
    );
  });

  it("leaves a user's own setting of the same name as it is, and adds the others", () => {
    expect(daemonEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=8' })['GLIBC_TUNABLES']).toBe('glibc.malloc.arena_max=8:glibc.malloc.mmap_threshold=131072');
    const own = 'glibc.malloc.mmap_threshold=1048576:glibc.malloc.arena_max=4';
    expect(daemonEnv({ GLIBC_TUNABLES: own })['GLIBC_TUNABLES']).toBe(own);
  });

  it('treats an empty GLIBC_TUNABLES as unset', () => {
    expect(daemonEnv({ GLIBC_TUNABLES: '' })['GLIBC_TUNABLES']).toBe('glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2');
  });

  it('does not change the environment it was given', () => {
    const base = { PATH: '/usr/bin' };
    daemonEnv(base);
    expect(base).toEqual({ PATH: '/usr/bin' });
  });
});

describe('restoreUserMallocEnv', () => {
  it("gives the daemon's children the environment the user had: no tunables", () => {
    const env = daemonEnv({ PATH: '/usr/bin' });
    restoreUserMallocEnv(env);
    expect(env).toEqual({ PATH: '/usr/bin', ELECTRON_RUN_AS_NODE: '1' });
  });

  it("gives them the user's own tunables back", () => {
    const env = daemonEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' });
    restoreUserMallocEnv(env);
    expect(env['GLIBC_TUNABLES']).toBe('glibc.malloc.arena_max=2');
    expect(env['TABMUX_GLIBC_TUNABLES_BEFORE']).toBeUndefined();
  });

  it('leaves alone a daemon tabmux did not start (`tabmux daemon run` by hand)', () => {
    const env = { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072' };
    restoreUserMallocEnv(env);
    expect(env).toEqual({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072' });
  });
});
