import { execFile, spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';
import { ChromeProcess } from '../browser/ChromeProcess.js';
import { findChrome } from '../browser/findChrome.js';
import { readDaemonPidFile } from '../lifecycle/DaemonPidFile.js';
import { tryConnect } from '../lifecycle/daemonProcess.js';
import { pidFilePath, profileDataDir, profileUserDataDir, type TabmuxPaths } from '../platform/paths.js';
import { isProcessAlive, killProcessGroup } from '../process/processes.js';
import { removeSingletonFolder } from '../process/chromeHolding.js';
import type { ProfileEntry } from '../profile/ProfileStore.js';
import { chromeExtraArgs } from '../profile/settings.js';
import { packageRoot } from '../platform/version.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One finding of `tabmux doctor`: what was checked, what was found, and what to do when it is not ok. */
export interface DoctorCheck {
  name: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

/** How long Chrome gets to say it listens (its DevTools line) before the probe counts it as not starting. */
const CHROME_START_DEADLINE_MS = 30_000;
const VERSION_DEADLINE_MS = 15_000;

function check(name: string, status: CheckStatus, message: string, fix?: string): DoctorCheck {
  return fix === undefined ? { name, status, message } : { name, status, message, fix };
}

function versionParts(text: string): number[] {
  return (text.match(/\d+(\.\d+)*/)?.[0] ?? '0').split('.').map(Number);
}

function atLeast(have: readonly number[], need: readonly number[]): boolean {
  for (let index = 0; index < Math.max(have.length, need.length); index += 1) {
    const a = have[index] ?? 0;
    const b = need[index] ?? 0;
    if (a !== b) {
      return a > b;
    }
  }
  return true;
}

/** Node against package.json's `engines.node` (a `>=X.Y.Z` floor). */
export function checkNode(version: string = process.versions.node): DoctorCheck {
  let engines = '';
  try {
    const json: unknown = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
    if (typeof json === 'object' && json !== null && 'engines' in json && typeof json.engines === 'object' && json.engines !== null && 'node' in json.engines && typeof json.engines.node === 'string') {
      engines = json.engines.node;
    }
  } catch {
    // No readable package.json: said below.
  }
  const floor = /^>=\s*(\d+(\.\d+)*)$/.exec(engines.trim())?.[1];
  if (floor === undefined) {
    return check('node', 'warn', `Node ${version}; the package's engines field (${engines || 'none'}) could not be read as a floor`);
  }
  return atLeast(versionParts(version), versionParts(floor))
    ? check('node', 'ok', `Node ${version} (tabmux needs ${engines})`)
    : check('node', 'fail', `Node ${version} is older than tabmux needs (${engines})`, `install Node ${floor} or newer (nvm install ${floor}, or your system's package)`);
}

function run(file: string, args: readonly string[], deadlineMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, [...args], { timeout: deadlineMs, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${error.message}${stderr ? `: ${stderr.trim().slice(0, 300)}` : ''}`));
      } else {
        resolve(stdout.trim());
      }
    });
  });
}

type StartProbe = { started: true } | { started: false; why: string };

/** Probes already run in this process: profiles that launch the same Chrome the same way are probed once. */
const probes = new Map<string, Promise<StartProbe>>();

function chromeStarts(executable: string, args: readonly string[]): Promise<StartProbe> {
  const key = JSON.stringify([executable, ...args]);
  let probe = probes.get(key);
  if (probe === undefined) {
    probe = probeStart(executable, args);
    probes.set(key, probe);
  }
  return probe;
}

/** Starts Chrome headless with `args` in a scratch user-data-dir, until it says it listens; the end of its stderr when it does not. */
async function probeStart(executable: string, args: readonly string[]): Promise<StartProbe> {
  const userDataDir = await fs.mkdtemp(join(tmpdir(), 'tabmux-doctor-'));
  try {
    // A group of its own, so that its helper processes end with it and write nothing into the folder once it is removed.
    const child = spawn(executable, [...args, `--user-data-dir=${userDataDir}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    const outcome = await new Promise<StartProbe>((resolve) => {
      const timer = setTimeout(() => resolve({ started: false, why: `it did not start within ${CHROME_START_DEADLINE_MS / 1000} s` }), CHROME_START_DEADLINE_MS);
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('DevTools listening on')) {
          clearTimeout(timer);
          resolve({ started: true });
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        resolve({ started: false, why: error.message });
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const last = stderr.trim().split('\n').filter(Boolean).slice(-2).join(' / ');
        resolve({ started: false, why: `it exited (${signal ?? `code ${String(code)}`})${last ? `: ${last.slice(0, 300)}` : ''}` });
      });
    });
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      killProcessGroup(child.pid, 'SIGKILL');
      await exited;
    }
    if (child.pid !== undefined) {
      // Killed, it leaves its singleton socket's temp folder behind.
      await removeSingletonFolder(userDataDir, child.pid);
    }
    return outcome;
  } finally {
    await fs.rm(userDataDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

/** The Chrome a profile launches: found, its version, and whether it starts headless with its sandbox or needs --no-sandbox. */
export async function checkChrome(profile: ProfileEntry, env: NodeJS.ProcessEnv = process.env): Promise<DoctorCheck[]> {
  const name = `chrome (${profile.name})`;
  const { config } = profile;
  if (config.browserUrl !== undefined || config.wsEndpoint !== undefined) {
    return [check(name, 'ok', `profile ${profile.name} connects to a browser tabmux does not launch (${config.browserUrl ?? 'a WebSocket endpoint'}); not started here`)];
  }
  let executable: string;
  try {
    executable = findChrome(config.chrome, env);
  } catch (error) {
    const fix =
      config.chrome === undefined
        ? 'install Chrome or Chromium (apt-get install chromium), or point to one with TABMUX_CHROME=PATH or --chrome PATH'
        : `the profile names ${config.chrome}; install Chrome there, or add the profile again with another: tabmux profile remove ${profile.name} && tabmux profile add ${profile.name} --chrome PATH`;
    return [check(name, 'fail', TabmuxError.from(error).message, fix)];
  }
  const checks: DoctorCheck[] = [];
  try {
    checks.push(check(name, 'ok', `${executable}: ${await run(executable, ['--version'], VERSION_DEADLINE_MS)}`));
  } catch (error) {
    return [check(name, 'fail', `${executable} does not run: ${error instanceof Error ? error.message : String(error)}`, 'reinstall it, or point to another one with --chrome PATH or TABMUX_CHROME')];
  }
  // What tabmux passes (its own flags, the profile's, and --no-sandbox when it runs as root), headless for the probe.
  const args = ChromeProcess.buildArgs({ userDataDir: '', headless: true, extraArgs: chromeExtraArgs(config, env) }).filter((arg) => !arg.startsWith('--user-data-dir=') && arg !== 'about:blank');
  const tabmuxDisables = args.includes('--no-sandbox');
  const sandboxed = await chromeStarts(executable, args.filter((arg) => arg !== '--no-sandbox'));
  if (sandboxed.started) {
    checks.push(check(`${name} sandbox`, 'ok', `starts headless with its sandbox${tabmuxDisables ? ' (tabmux passes --no-sandbox as root all the same)' : ''}`));
    return checks;
  }
  const unsandboxed = await chromeStarts(executable, [...args.filter((arg) => arg !== '--no-sandbox'), '--no-sandbox']);
  if (!unsandboxed.started) {
    checks.push(check(`${name} sandbox`, 'fail', `does not start headless: ${unsandboxed.why}`, `run it by hand to see why: ${executable} --headless=new --no-sandbox about:blank; missing libraries are the usual cause`));
  } else if (tabmuxDisables) {
    checks.push(check(`${name} sandbox`, 'ok', 'needs --no-sandbox (running as root), which tabmux passes'));
  } else {
    checks.push(
      check(`${name} sandbox`, 'warn', `starts only with --no-sandbox: ${sandboxed.why}`, `allow Chrome's sandbox (unprivileged user namespaces), or run without it: tabmux profile add NAME --chrome-arg=--no-sandbox, or TABMUX_CHROME_ARGS=--no-sandbox`),
    );
  }
  return checks;
}

/** A folder tabmux keeps files in: absent (made on first use) or a directory of this user's that others cannot write. */
export async function checkFolder(name: string, dir: string, options: { private?: boolean } = {}): Promise<DoctorCheck> {
  let stat;
  try {
    stat = await fs.lstat(dir);
  } catch {
    return check(name, 'ok', `${dir} does not exist yet; tabmux creates it on first use`);
  }
  if (stat.isSymbolicLink() || !stat.isDirectory()) {
    return check(name, 'fail', `${dir} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}`, `remove it (tabmux recreates it), or set TABMUX_HOME to another folder`);
  }
  if (process.platform === 'win32') {
    return check(name, 'ok', dir);
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : stat.uid;
  const mode = (stat.mode & 0o777).toString(8);
  if (stat.uid !== uid) {
    return check(name, 'fail', `${dir} belongs to uid ${stat.uid}, not to you (uid ${uid})`, `remove it or set TABMUX_HOME to a folder of yours`);
  }
  if ((stat.mode & 0o022) !== 0) {
    return check(name, 'fail', `${dir} is writable by group or others (mode ${mode})`, `chmod 700 ${dir}`);
  }
  if (options.private === true && (stat.mode & 0o077) !== 0) {
    return check(name, 'warn', `${dir} is readable by group or others (mode ${mode}); it holds cookies and logins`, `chmod 700 ${dir}`);
  }
  return check(name, 'ok', `${dir} (mode ${mode})`);
}

/**
 * A profile's daemon: not running, running and answering (with a browser that answers, or not), or a pid file of one
 * that died or does not answer.
 */
export async function checkDaemon(paths: TabmuxPaths, profile: string): Promise<DoctorCheck> {
  const name = `daemon (${profile})`;
  const record = await readDaemonPidFile(pidFilePath(paths, profile));
  if (record === undefined) {
    return check(name, 'ok', 'not running');
  }
  if (!isProcessAlive(record.pid)) {
    return check(name, 'warn', `a daemon (pid ${record.pid}) died without cleaning up`, `tabmux daemon start --profile ${profile} cleans up after it (and starts a new one)`);
  }
  const client = await tryConnect(paths, profile, 'tabmux-doctor', { looksOnly: true }).catch(() => undefined);
  if (client === undefined) {
    return check(name, 'fail', `pid ${record.pid} runs but its socket does not answer`, `tabmux daemon stop --profile ${profile}, then tabmux daemon start --profile ${profile}; its log: tabmux daemon status shows where`);
  }
  try {
    const since = (await client.call('tabmux/status')).browserSilentSince;
    if (typeof since === 'number') {
      const seconds = Math.max(0, Math.round((Date.now() - since) / 1000));
      return check(
        name,
        'warn',
        `running, pid ${record.pid}, but its browser has not answered for ${seconds} s: every call on this profile waits on it`,
        `a page keeping Chrome busy, a paused Chrome or an overloaded machine can do this; if it does not come back, tabmux daemon stop --profile ${profile} closes it (logins stay)`,
      );
    }
  } catch {
    // A daemon that took the connection but does not tell its status is still running and answering its socket.
  } finally {
    client.close();
  }
  return check(name, 'ok', `running, pid ${record.pid}, its socket answers`);
}

/** Every check for the given profiles, in the order a person fixes them: Node, folders, then each profile. */
export async function runDoctor(paths: TabmuxPaths, profiles: readonly ProfileEntry[], env: NodeJS.ProcessEnv = process.env): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [checkNode()];
  const home = env['TABMUX_HOME'];
  checks.push(home === undefined ? check('TABMUX_HOME', 'ok', 'not set: the platform folders are used') : await checkFolder('TABMUX_HOME', home));
  checks.push(await checkFolder('config folder', paths.configDir), await checkFolder('data folder', paths.dataDir), await checkFolder('runtime folder', paths.runtimeDir, { private: true }));
  for (const profile of profiles) {
    checks.push(await checkFolder(`profile ${profile.name} folder`, profileDataDir(paths, profile.name)));
    checks.push(await checkFolder(`profile ${profile.name} Chrome data`, profileUserDataDir(paths, profile.name), { private: true }));
    checks.push(...(await checkChrome(profile, env)));
    checks.push(await checkDaemon(paths, profile.name));
  }
  return checks;
}
