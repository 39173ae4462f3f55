import { execFile } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliDriver } from '../helpers/cliDriver.js';
import { cliPath } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';

/**
 * Shell completion as a person gets it: the script `tabmux completion SHELL` prints, loaded into a real bash, zsh and
 * fish, completing against a real daemon's sessions, tools and tabs (one of them a page whose title is a terminal
 * escape). zsh and fish run where they are installed (.ci/run installs both); elsewhere their tests are skipped.
 */

const { home, cleanup } = makeTestHome();
const { ok, tabmux } = cliDriver(home);
const bin = join(home, 'bin');
let session = '';

beforeAll(async () => {
  // `tabmux` on the PATH, as `npm install -g` puts it there.
  mkdirSync(bin);
  writeFileSync(join(bin, 'tabmux'), `#!/bin/sh\nexec "${process.execPath}" "${cliPath()}" "$@"\n`);
  chmodSync(join(bin, 'tabmux'), 0o755);
  writeFileSync(join(home, 'steps.json'), '[]');
  session = (await ok(['session', 'create', '--label', 'writer'])).trim();
  await ok(['mcp', 'call', '--session', session, 'new_page', JSON.stringify({ url: 'data:text/html,<title>Cart</title>' })]);
}, 60_000);

afterAll(async () => {
  await tabmux(['daemon', 'stop']);
  cleanup();
});

/** Whether a shell is installed where Debian puts it. */
function has(shell: string): boolean {
  return ['/usr/bin', '/bin', '/usr/local/bin'].some((dir) => {
    try {
      accessSync(join(dir, shell), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Runs a shell script with `tabmux` on the PATH and this file's TABMUX_HOME. */
function shell(program: string, script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, ['-c', script], { cwd: home, env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: home, TABMUX_HOME: home }, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${program} failed: ${error.message}\n${stderr}`));
        return;
      }
      resolve(stdout);
    });
  });
}

describe('tabmux completion', () => {
  it('completes in bash: commands, the running daemon\'s sessions and tools, and paths', async () => {
    const replies = (words: string[]): string =>
      `COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tabmux; printf '%s\\n' "\${COMPREPLY[@]}"; echo --;`;
    const out = await shell(
      'bash',
      `source <(tabmux completion bash)\n${replies(['tabmux', 'sess'])}${replies(['tabmux', 'mcp', 'call', '--session', ''])}${replies(['tabmux', 'mcp', 'call', '--session', session, 'take_sn'])}${replies(['tabmux', 'mcp', 'batch', '--script', 'ste'])}${replies(['tabmux', 'session', 'attach', '--page', ''])}`,
    );
    const [groups, sessions, tools, files, pages] = out.split('--\n').map((part) => part.trim());
    expect(groups).toBe('session');
    expect(sessions).toBe(session);
    expect(tools).toBe('take_snapshot');
    expect(files).toBe('steps.json');
    expect(pages?.split('\n')).toEqual(expect.arrayContaining(['1', '2']));
    expect(await tabmux(['__complete', '--', 'tabmux', 'session', 'attach', '--page', ''])).toMatchObject({ stdout: expect.stringMatching(/^2\tCart · sess-/m) as unknown });
  });

  it("prints an agent's label as escapes, never as the control characters it holds", async () => {
    // A label that would set the terminal's title and beep, were it printed as it is.
    const hostile = (await ok(['session', 'create', '--label', '\u001b]0;pwned\u0007writer'])).trim();
    const run = await tabmux(['__complete', '--', 'tabmux', 'session', 'close', '--session', hostile]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${hostile}\t\\u001b]0;pwned\\u0007writer · idle\n`);
    await ok(['session', 'close', '--session', hostile]);
  });

  it('offers nothing from a daemon that does not run, and starts none', async () => {
    const run = await tabmux(['__complete', '--', 'tabmux', '--profile', 'other', 'mcp', 'call', '--session', '']);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect((await tabmux(['daemon', 'status', '--profile', 'other'])).code).not.toBe(0);
  });

  it.skipIf(!has('zsh'))('completes in zsh, with what each candidate is (skipped where zsh is not installed)', async () => {
    // zsh's completion widgets need a terminal; the functions the script calls print what they were given instead.
    const out = await shell(
      'zsh',
      `compdef() { print "compdef $*"; }; _describe() { print -rl -- "\${(@P)4}"; }; _files() { print files; }\nsource <(tabmux completion zsh)\nwords=(tabmux mcp call --session ''); CURRENT=5; _tabmux\nwords=(tabmux mcp batch --script ''); CURRENT=5; _tabmux`,
    );
    expect(out.split('\n')).toEqual(['compdef _tabmux tabmux', expect.stringMatching(new RegExp(`^${session}:writer · idle · data:text/html`)), 'files', '']);
  });

  it.skipIf(!has('fish'))('completes in fish, with what each candidate is (skipped where fish is not installed)', async () => {
    const out = await shell('fish', `tabmux completion fish | source\ncomplete -C 'tabmux sess'\ncomplete -C 'tabmux mcp call --session '\ncomplete -C 'tabmux mcp batch --script ste'`);
    expect(out.split('\n')).toEqual(['session\tsession commands', expect.stringMatching(new RegExp(`^${session}\twriter · idle`)), 'steps.json', '']);
  });
});
