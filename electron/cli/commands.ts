import { TabmuxError } from '../../shared/errors.js';
import { ProfileStore } from '../core/profile/ProfileStore.js';
import { boolOption, printResult as print, stringOption, type Command, type CommandContext } from './Command.js';
import { connectOrStart, tryConnect } from '../core/lifecycle/daemonProcess.js';
import { restartDaemon, stopAllDaemons, stopDaemon } from '../core/lifecycle/stopDaemon.js';
import { stoppedLine } from '../core/lifecycle/unresponsiveDaemon.js';
import { RESTART_DRAIN_MS } from '../../shared/protocolConstants.js';
import type { DaemonClient } from '../core/transport/DaemonClient.js';
import { formatBrowserShort, formatPageResult, formatSessions, formatStatus, formatTabs } from './format.js';
import { mcpCommands } from './mcpCommands.js';
import { profileCommands } from './profileCommands.js';
import { dashboardCommands } from './dashboardCommand.js';
import { logCommands } from './logCommands.js';
import { requestCommands } from './requestCommands.js';
import { policyCommands } from './policyCommands.js';
import { doctorCommand } from './doctorCommand.js';
import { completionCommand } from './completionCommand.js';
import { chromeOptions, daemonRun } from './daemonRun.js';
import { sessionCreate } from './sessionCreate.js';
import { daemonStart } from './daemonStart.js';
import { startOptions } from './sessionOptions.js';

function requireSession(context: CommandContext): string {
  const session = stringOption(context.values, 'session');
  if (!session) {
    throw new TabmuxError('invalid_params', 'missing --session ID (create one with: tabmux session create)');
  }
  return session;
}

function requirePage(context: CommandContext, name = 'page'): number {
  const value = stringOption(context.values, name);
  const page = value === undefined ? Number.NaN : Number(value);
  if (!Number.isInteger(page) || page < 0) {
    throw new TabmuxError('invalid_params', `--${name} must be a page id (a whole number, as tabmux pages shows it)`);
  }
  return page;
}

async function withDaemon<T>(context: CommandContext, use: (client: DaemonClient) => Promise<T>): Promise<T> {
  const client = await connectOrStart(context.paths, context.profile, 'tabmux-cli', startOptions(context.values));
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

/** A command that makes one daemon call and prints its result: as JSON with --json, else as `text(result)`. */
function showing<T>(call: (client: DaemonClient, context: CommandContext) => Promise<T>, text: (result: T) => string, check: (context: CommandContext) => void = () => undefined): Command['run'] {
  return (context) => {
    // A mistake in the arguments is reported before a daemon (and its Chrome) is started for nothing.
    check(context);
    return withDaemon(context, async (client) => {
      const result = await call(client, context);
      print(context, result, text(result));
      return 0;
    });
  };
}

function checkSession(context: CommandContext): void {
  requireSession(context);
}

function checkSessionAndPage(context: CommandContext): void {
  requireSession(context);
  if (stringOption(context.values, 'page') !== undefined) {
    requirePage(context);
  }
}

/**
 * A command that only reads: the running daemon's answer, or, when none runs, `idle` (what a daemon with nothing to
 * show answers) and a line saying so. Reading never starts a daemon: one started to be looked at would run on, with
 * its Chrome, and nobody to stop it.
 */
function reading<T>(call: (client: DaemonClient) => Promise<T>, text: (result: T) => string, idle: T): Command['run'] {
  return async (context) => {
    const client = await tryConnect(context.paths, context.profile, 'tabmux-cli', { looksOnly: true });
    if (!client) {
      print(context, idle, `${text(idle)} (the daemon for profile ${context.profile} is not running)`);
      return 0;
    }
    try {
      const result = await call(client);
      print(context, result, text(result));
      return 0;
    } finally {
      client.close();
    }
  };
}

const sessionOption = { session: { type: 'string', short: 's' } } as const;

/** `daemon stop --all`: exit 0 when every daemon that ran was stopped (also when none ran), 1 when one could not be. */
async function stopAll(context: CommandContext): Promise<number> {
  const profiles = await new ProfileStore(context.paths).list();
  const { stopped, how, failed } = await stopAllDaemons(context.paths, profiles.map((profile) => profile.name));
  const lines = stopped.length === 0 && failed.length === 0 ? ['no daemon was running'] : stopped.map((profile) => stoppedLine(context.paths, profile, how[profile] ?? 'asked'));
  for (const { profile, error } of failed) {
    lines.push(`could not stop profile ${profile}: ${error.message}`);
  }
  print(context, { stopped, how, failed: failed.map(({ profile, error }) => ({ profile, error: { code: error.code, message: error.message } })) }, lines.join('\n'));
  return failed.length === 0 ? 0 : 1;
}

const daemonCommands: Command[] = [
  daemonStart,
  {
    words: ['daemon', 'status'],
    usage: 'tabmux daemon status [--profile NAME] [--json]',
    summary: 'Show sessions, their pages, the queue, Chrome and upstream processes (exit 3 when not running)',
    examples: ['tabmux daemon status', 'tabmux daemon status --profile work --json', 'tabmux daemon status >/dev/null; [ $? -eq 3 ] && echo "not running"'],
    run: async (context) => {
      const client = await tryConnect(context.paths, context.profile, 'tabmux-cli', { looksOnly: true });
      if (!client) {
        print(context, { profile: context.profile, state: 'stopped' }, `daemon for profile ${context.profile} is not running`);
        return 3;
      }
      try {
        const status = await client.call('tabmux/status');
        print(context, status, formatStatus(status));
        return 0;
      } finally {
        client.close();
      }
    },
  },
  {
    words: ['daemon', 'stop'],
    usage: 'tabmux daemon stop [--profile NAME] | daemon stop --all',
    summary: "Stop the daemon, its upstream and its Chrome, and return once they are gone (saying so when the daemon had to be signalled or killed); --all stops every profile's daemon",
    options: { all: { type: 'boolean' } },
    examples: ['tabmux daemon stop', 'tabmux daemon stop --profile work', 'tabmux daemon stop --all', 'tabmux daemon stop --json   # {"profile", "stopped", "how": "asked" | "signalled" | "killed"}'],
    run: async (context) => {
      if (boolOption(context.values, 'all')) {
        return stopAll(context);
      }
      const how = await stopDaemon(context.paths, context.profile);
      if (how === undefined) {
        print(context, { profile: context.profile, stopped: false }, `daemon for profile ${context.profile} was not running`);
      } else {
        print(context, { profile: context.profile, stopped: true, how }, stoppedLine(context.paths, context.profile, how));
      }
      return 0;
    },
  },
  {
    words: ['daemon', 'restart'],
    usage: 'tabmux daemon restart [--profile NAME] [--chrome PATH] [--headless]',
    summary: "Restart the daemon (after upgrading tabmux, say), keeping its Chrome, sessions and their tabs; starts it if it is not running",
    options: chromeOptions,
    examples: ['tabmux daemon restart', 'tabmux daemon restart --profile work'],
    run: async (context) => {
      const { status, restarted } = await restartDaemon(context.paths, context.profile, {
        ...startOptions(context.values),
        onCallsUnderWay: (count) => context.stderr(`letting ${count} call${count === 1 ? '' : 's'} under way finish first (up to ${RESTART_DRAIN_MS / 1000} s)`),
      });
      const text = `${restarted ? 'restarted' : 'started'}: profile ${status.profile}, daemon pid ${status.pid}, ${formatBrowserShort(status.browser)}, ${status.sessions.length} session(s)`;
      print(context, { ...status, restarted }, text);
      return 0;
    },
  },
  daemonRun,
];

const sessionCommands: Command[] = [
  sessionCreate,
  {
    words: ['session', 'list'],
    usage: 'tabmux session list [--json]',
    summary: 'List sessions with their pages',
    examples: ['tabmux session list', 'tabmux session list --profile work --json'],
    run: reading(async (client) => (await client.call('tabmux/session.list')).sessions, formatSessions, []),
  },
  {
    words: ['session', 'close'],
    usage: 'tabmux session close --session ID',
    summary: 'Close a session and the tabs it opened (attached tabs stay open)',
    options: sessionOption,
    examples: ['tabmux session close --session "$S"'],
    run: showing(
      (client, context) => client.call('tabmux/session.close', { session: requireSession(context) }),
      (result) => `closed session ${result.closed} and ${result.closedPages.length} tab(s) it opened`,
      checkSession,
    ),
  },
  {
    words: ['session', 'page'],
    usage: 'tabmux session page --session ID',
    summary: "Show a session's current page",
    options: sessionOption,
    examples: ['tabmux session page --session "$S"', 'tabmux session page --session "$S" --json'],
    run: showing((client, context) => client.call('tabmux/session.page', { session: requireSession(context) }), (result) => formatPageResult(result), checkSession),
  },
  {
    words: ['session', 'attach'],
    usage: 'tabmux session attach --session ID --page PAGE',
    summary: 'Give an existing tab to a session (it stays open when the session ends)',
    options: { ...sessionOption, page: { type: 'string' } },
    examples: ['tabmux session attach --session "$S" --page 3'],
    run: showing(
      (client, context) => client.call('tabmux/session.attach', { session: requireSession(context), pageId: requirePage(context) }),
      (result) => formatPageResult(result, 'attached the tab'),
      (context) => {
        requireSession(context);
        requirePage(context);
      },
    ),
  },
  {
    words: ['session', 'new-page'],
    usage: 'tabmux session new-page --session ID [--url URL] [--foreground]',
    summary: 'Open a new tab for a session',
    options: { ...sessionOption, url: { type: 'string' }, foreground: { type: 'boolean' } },
    optionHelp: {
      url: { text: 'the address the new tab opens', value: 'URL', default: 'about:blank' },
      foreground: { text: 'bring the new tab to the front', default: 'opened in the background' },
    },
    examples: ['tabmux session new-page --session "$S" --url https://example.com', 'tabmux session new-page --session "$S" --foreground'],
    run: showing(
      (client, context) =>
        client.call('tabmux/session.newPage', {
          session: requireSession(context),
          url: stringOption(context.values, 'url') ?? 'about:blank',
          background: !boolOption(context.values, 'foreground'),
        }),
      (result) => formatPageResult(result, 'opened a tab'),
      checkSession,
    ),
  },
  {
    words: ['session', 'release'],
    usage: 'tabmux session release --session ID [--page PAGE]',
    summary: "Take a tab away from a session, leaving it open (default: the session's current page)",
    options: { ...sessionOption, page: { type: 'string' } },
    optionHelp: { page: { text: 'the page to take away, as tabmux pages shows it', value: 'PAGE', default: "the session's current page" } },
    examples: ['tabmux session release --session "$S"', 'tabmux session release --session "$S" --page 4'],
    run: showing(
      (client, context) =>
        client.call(
          'tabmux/session.release',
          stringOption(context.values, 'page') === undefined ? { session: requireSession(context) } : { session: requireSession(context), pageId: requirePage(context) },
        ),
      (result) => formatPageResult(result, 'released the tab'),
      checkSessionAndPage,
    ),
  },
  {
    words: ['session', 'pause'],
    usage: 'tabmux session pause --session ID',
    summary: "Hold a session's calls so a human can use its tab",
    options: sessionOption,
    examples: ['tabmux session pause --session "$S"'],
    run: showing(
      (client, context) => client.call('tabmux/session.pause', { session: requireSession(context) }),
      (session) => `paused session ${session.id}: its calls wait until tabmux session resume --session ${session.id}`,
      checkSession,
    ),
  },
  {
    words: ['session', 'resume'],
    usage: 'tabmux session resume --session ID',
    summary: "Let a paused session's calls run again",
    options: sessionOption,
    examples: ['tabmux session resume --session "$S"'],
    run: showing(
      (client, context) => client.call('tabmux/session.resume', { session: requireSession(context) }),
      (session) => `resumed session ${session.id}: its calls run again`,
      checkSession,
    ),
  },
  {
    words: ['pages'],
    usage: 'tabmux pages [--json]',
    summary: 'Every tab of the profile with its owner',
    examples: ['tabmux pages', 'tabmux pages --profile work --json'],
    run: reading(async (client) => (await client.call('tabmux/tabs.list')).tabs, formatTabs, []),
  },
];

export const COMMANDS: readonly Command[] = [...daemonCommands, ...profileCommands, ...sessionCommands, ...mcpCommands, ...requestCommands, ...policyCommands, ...logCommands, ...dashboardCommands, doctorCommand, completionCommand];

