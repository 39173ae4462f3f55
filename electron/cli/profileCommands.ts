import { readdir, rm } from 'node:fs/promises';
import { TabmuxError } from '../../shared/errors.js';
import { parseWsHeader, validateBrowserUrl, validateWsEndpoint } from '../core/profile/browserUrl.js';
import { validateIsolation } from '../core/profile/addExternalProfile.js';
import { isDaemonRunning, tryConnect } from '../core/lifecycle/daemonProcess.js';
import { DEFAULT_PROFILE, ProfileStore, validateProfileName } from '../core/profile/ProfileStore.js';
import { chromeHolding } from '../core/process/chromeHolding.js';
import { profileDataDir, profileUserDataDir } from '../core/platform/paths.js';
import { shownProfileConfig } from '../core/profile/shownProfileConfig.js';
import { boolOption, printResult as print, stringOption, stringsOption, type Command } from './Command.js';
import { chromeOptions } from './daemonRun.js';

/** `tabmux profile list | add | remove`: the named profiles in profiles.json, each with its own Chrome data. */
export const profileCommands: Command[] = [
  {
    words: ['profile', 'list'],
    usage: 'tabmux profile list [--json]',
    summary: 'List profiles and whether their daemon runs',
    examples: ['tabmux profile list', 'tabmux profile list --json'],
    anyProfile: true,
    run: async (context) => {
      const profiles = await new ProfileStore(context.paths).list();
      const rows = await Promise.all(
        profiles.map(async (profile) => {
          const client = await tryConnect(context.paths, profile.name, 'tabmux-cli', { looksOnly: true }).catch(() => undefined);
          client?.close();
          return { name: profile.name, running: client !== undefined, config: shownProfileConfig(profile.config) };
        }),
      );
      print(context, rows, rows.map((row) => `${row.name}\t${row.running ? 'running' : 'stopped'}`).join('\n'));
      return 0;
    },
  },
  {
    words: ['profile', 'add'],
    usage:
      "tabmux profile add NAME [--chrome PATH] [--headless] [--chrome-arg FLAG]... [--workers N] [--isolation tab|window] | NAME --browser-url URL | NAME --ws-endpoint URL [--ws-header 'Name: value']... (external: [--start-command CMD] [--workers N] [--isolation tab|window]) [--log-values]",
    summary: 'Create a profile with its own Chrome user-data-dir, or one that connects to your own browser (--browser-url) or a remote engine (--ws-endpoint)',
    positionals: [1, 1],
    options: {
      ...chromeOptions,
      'chrome-arg': { type: 'string', multiple: true },
      workers: { type: 'string' },
      'browser-url': { type: 'string' },
      'ws-endpoint': { type: 'string' },
      'ws-header': { type: 'string', multiple: true },
      'start-command': { type: 'string' },
      isolation: { type: 'string' },
      'log-values': { type: 'boolean' },
    },
    optionHelp: {
      chrome: { text: 'the Chrome or Chromium this profile launches', value: 'PATH', default: 'one found in the usual places', env: 'TABMUX_CHROME' },
      headless: { text: 'this profile runs Chrome without a window', default: 'headed (headless on Linux without a display)', env: 'TABMUX_HEADLESS=1' },
      'chrome-arg': { text: 'an extra Chrome flag for this profile, like --chrome-arg=--lang=de', value: 'FLAG', env: 'TABMUX_CHROME_ARGS (space-separated)' },
      workers: { text: 'how many upstream workers may serve sessions in parallel (1 to 16)', value: 'N', default: 'an eighth of memory at ~150 MiB each, 2 to 16', env: 'TABMUX_WORKERS' },
      'browser-url': { text: "connect to a Chrome you started with --remote-debugging-port, by its HTTP address, instead of launching one", value: 'URL' },
      'ws-endpoint': { text: "connect to a remote engine's CDP WebSocket (browserless, Selenium Grid, a hosted service)", value: 'URL' },
      'ws-header': { text: 'a header sent with --ws-endpoint\'s handshake; ${VAR} is read from the environment when connecting, never stored', value: "'NAME: VALUE'" },
      'start-command': { text: 'a command tabmux runs to start the external browser when it is not reachable', value: 'CMD' },
      isolation: { text: 'tab: sessions share windows; window: each session gets a window of its own', value: 'tab|window', default: 'tab' },
      'log-values': { text: 'keep typed values and header values in the activity log in clear', default: 'redacted' },
    },
    examples: [
      'tabmux profile add work',
      'tabmux profile add ci --headless --workers 4',
      'tabmux profile add mine --browser-url http://127.0.0.1:9222',
      "tabmux profile add remote --ws-endpoint wss://engine.example/chrome --ws-header 'Authorization: Bearer ${ENGINE_TOKEN}'",
    ],
    anyProfile: true,
    run: async (context) => {
      const name = context.positionals[0] ?? '';
      const chromeArgs = context.values['chrome-arg'];
      const workers = stringOption(context.values, 'workers');
      const config: Record<string, unknown> = {};
      const browserUrl = stringOption(context.values, 'browser-url');
      const wsEndpoint = stringOption(context.values, 'ws-endpoint');
      const wsHeaders = stringsOption(context.values, 'ws-header');
      const startCommand = stringOption(context.values, 'start-command');
      if (browserUrl !== undefined && wsEndpoint !== undefined) {
        throw new TabmuxError('invalid_params', 'give either --browser-url (HTTP discovery) or --ws-endpoint (a WebSocket), not both');
      }
      const external = browserUrl !== undefined || wsEndpoint !== undefined;
      if (external && (stringOption(context.values, 'chrome') !== undefined || boolOption(context.values, 'headless') || chromeArgs !== undefined)) {
        throw new TabmuxError('invalid_params', '--browser-url and --ws-endpoint connect to a browser you run; --chrome, --headless and --chrome-arg only apply to a Chrome that tabmux launches');
      }
      if (wsHeaders.length > 0 && wsEndpoint === undefined) {
        throw new TabmuxError('invalid_params', '--ws-header goes with --ws-endpoint (headers are sent with its WebSocket handshake)');
      }
      if (startCommand !== undefined && !external) {
        throw new TabmuxError('invalid_params', '--start-command goes with --browser-url or --ws-endpoint: tabmux launches its own Chrome otherwise');
      }
      if (browserUrl !== undefined) {
        config['browserUrl'] = validateBrowserUrl(browserUrl);
      }
      if (wsEndpoint !== undefined) {
        config['wsEndpoint'] = validateWsEndpoint(wsEndpoint);
        if (wsHeaders.length > 0) {
          config['wsHeaders'] = Object.fromEntries(wsHeaders.map(parseWsHeader));
        }
      }
      if (startCommand !== undefined) {
        if (startCommand.trim() === '') {
          throw new TabmuxError('invalid_params', '--start-command must not be empty');
        }
        config['startCommand'] = startCommand;
      }
      const chrome = stringOption(context.values, 'chrome');
      if (chrome) {
        config['chrome'] = chrome;
      }
      if (boolOption(context.values, 'headless')) {
        config['headless'] = true;
      }
      if (Array.isArray(chromeArgs)) {
        config['chromeArgs'] = chromeArgs.filter((arg): arg is string => typeof arg === 'string');
      }
      if (workers !== undefined) {
        const count = Number(workers);
        if (!Number.isInteger(count) || count < 1 || count > 16) {
          throw new TabmuxError('invalid_params', '--workers must be a whole number from 1 to 16');
        }
        config['workers'] = count;
      }
      const isolation = stringOption(context.values, 'isolation');
      if (isolation !== undefined) {
        config['isolation'] = validateIsolation(isolation);
      }
      if (boolOption(context.values, 'log-values')) {
        // Typed values and header values are kept in the activity log in clear.
        config['logValues'] = true;
      }
      const entry = await new ProfileStore(context.paths).add(name, config);
      print(context, { name: entry.name, config: shownProfileConfig(entry.config) }, `added profile ${entry.name}`);
      return 0;
    },
  },
  {
    words: ['profile', 'remove'],
    usage: 'tabmux profile remove NAME [--delete-data]',
    summary: "Forget a profile (its data, logins included, stays on disk unless --delete-data; the daemon must be stopped)",
    positionals: [1, 1],
    options: { 'delete-data': { type: 'boolean' } },
    optionHelp: {
      'delete-data': {
        text:
          "also delete the profile's folder: the Chrome tabmux launches for it keeps its logins, cookies and history there, beside its downloads, " +
          'screenshots and activity log (a browser you run yourself keeps its own data, which this never touches); for the default profile, ' +
          'which always exists, this deletes its data and resets its settings',
        default: 'the folder is kept, and profile add NAME takes it up again',
      },
    },
    examples: ['tabmux daemon stop --profile work && tabmux profile remove work', 'tabmux profile remove default --delete-data'],
    anyProfile: true,
    run: async (context) => {
      const name = context.positionals[0] ?? '';
      const deleteData = boolOption(context.values, 'delete-data');
      validateProfileName(name);
      if (name === DEFAULT_PROFILE && !deleteData) {
        throw new TabmuxError(
          'invalid_params',
          'the default profile always exists, so it cannot be removed; tabmux profile remove default --delete-data deletes its data (logins, downloads, activity log) and resets its settings',
        );
      }
      const running = await isDaemonRunning(context.paths, name).catch((error: unknown) => {
        // Not knowing whether a daemon runs is a refusal to remove (exit 1), not "not running" (exit 3).
        throw new TabmuxError('daemon_running', TabmuxError.from(error).message, { cause: error });
      });
      if (running) {
        throw new TabmuxError('daemon_running', `profile ${name} is running; stop it first with: tabmux daemon stop --profile ${name}`);
      }
      const store = new ProfileStore(context.paths);
      // A missing profile is refused before anything is deleted.
      await store.get(name).catch((error: unknown) => {
        throw TabmuxError.from(error).code === 'invalid_profile' ? new TabmuxError('invalid_profile', `no profile named ${JSON.stringify(name)}`) : error;
      });
      const dataDir = profileDataDir(context.paths, name);
      if (deleteData) {
        // A Chrome still on the folder (one a dead daemon left, or one started by hand) would write into it as it goes.
        const holder = await chromeHolding(profileUserDataDir(context.paths, name));
        if (holder !== undefined) {
          throw new TabmuxError('profile_locked', `a Chrome (pid ${holder}) still runs on ${profileUserDataDir(context.paths, name)}; quit it, then remove the profile again`);
        }
      }
      await store.remove(name);
      const onDisk = await hasEntries(dataDir);
      if (deleteData) {
        await rm(dataDir, { recursive: true, force: true });
      }
      const what = name === DEFAULT_PROFILE ? 'reset the default profile' : `removed profile ${name}`;
      const text = !onDisk
        ? what
        : deleteData
          ? `${what} and deleted its data in ${dataDir}`
          : `${what}; its data (its Chrome's logins, downloads, activity log) stays in ${dataDir}: tabmux profile add ${name} takes it up again, --delete-data deletes it`;
      print(context, { removed: name, dataDir: onDisk ? dataDir : null, dataDeleted: onDisk && deleteData }, text);
      return 0;
    },
  },
];

/** Whether a folder exists and holds anything. */
async function hasEntries(dir: string): Promise<boolean> {
  const entries = await readdir(dir).catch(() => []);
  return entries.length > 0;
}
