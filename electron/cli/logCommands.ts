import { promises as fs } from 'node:fs';
import { ACTIVITY_OUTCOMES, type ActivityEntry, type ActivityOutcome, type ActivityQueryResult } from '../../shared/activity.js';
import { activityExport, renderActivityReport, reportPictureNames } from '../../shared/activityReport.js';
import { TabmuxError } from '../../shared/errors.js';
import { ActivityPictures } from '../core/activity/ActivityPictures.js';
import { DEFAULT_RETENTION } from '../core/activity/RetentionSettings.js';
import { matches, readActivityLog, type ActivityFilter } from '../core/activity/readActivityLog.js';
import { tryConnect } from '../core/lifecycle/daemonProcess.js';
import { profileActivityDir } from '../core/platform/paths.js';
import type { DaemonClient } from '../core/transport/DaemonClient.js';
import { boolOption, stringOption, stringsOption, type Command, type CommandContext } from './Command.js';
import { formatActivityLine } from './formatActivity.js';
import { parseSince } from './parseSince.js';

const DEFAULT_LIMIT = 1000;
const EXPORT_LIMIT = 100_000;

function filterOf(context: CommandContext, limit: number): ActivityFilter {
  const since = stringOption(context.values, 'since');
  const limitValue = stringOption(context.values, 'limit');
  const parsedLimit = limitValue === undefined ? limit : Number(limitValue);
  if (!Number.isInteger(parsedLimit) || parsedLimit < 1 || parsedLimit > EXPORT_LIMIT) {
    throw new TabmuxError('invalid_params', `--limit must be a whole number from 1 to ${EXPORT_LIMIT}`);
  }
  const tools = listOf(context, 'tool');
  const outcomes = listOf(context, 'outcome')?.map((outcome) => {
    if (!isOutcome(outcome)) {
      throw new TabmuxError('invalid_params', `--outcome takes ${ACTIVITY_OUTCOMES.join(', ')}; got ${outcome}`);
    }
    return outcome;
  });
  return { session: stringOption(context.values, 'session'), since: since === undefined ? undefined : parseSince(since), tools, outcomes, limit: parsedLimit };
}

/** An option given comma-separated, repeated or both; undefined when not given. */
function listOf(context: CommandContext, name: string): string[] | undefined {
  const given = stringsOption(context.values, name)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
  return given.length === 0 ? undefined : given;
}

function isOutcome(value: string): value is ActivityOutcome {
  return ACTIVITY_OUTCOMES.some((outcome) => outcome === value);
}

/** From the running daemon (it writes what it still holds first), else straight from the profile's files. */
async function query(context: CommandContext, client: DaemonClient | undefined, filter: ActivityFilter): Promise<ActivityQueryResult> {
  if (client) {
    const result = await client.call('tabmux/log.query', {
      ...(filter.session === undefined ? {} : { session: filter.session }),
      ...(filter.since === undefined ? {} : { since: filter.since }),
      ...(filter.tools === undefined ? {} : { tools: [...filter.tools] }),
      ...(filter.outcomes === undefined ? {} : { outcomes: [...filter.outcomes] }),
      limit: filter.limit,
    });
    // A daemon older than these filters answers without them: what it sent is filtered here too.
    return { ...result, entries: result.entries.filter((entry) => matches(entry, filter)) };
  }
  return readActivityLog(profileActivityDir(context.paths, context.profile), filter);
}

/** The report's pictures: through the running daemon (it finishes taking them first), else from the profile's files. */
async function picturesOf(context: CommandContext, client: DaemonClient | undefined, entries: readonly ActivityEntry[]): Promise<Map<string, string>> {
  const files = new ActivityPictures(profileActivityDir(context.paths, context.profile), DEFAULT_RETENTION);
  const pictures = new Map<string, string>();
  for (const name of reportPictureNames(entries)) {
    const data = client ? (await client.call('tabmux/log.picture', { name })).data : ((await files.read(name))?.toString('base64') ?? null);
    if (data !== null) {
      pictures.set(name, data);
    }
  }
  return pictures;
}

async function exportLog(context: CommandContext, client: DaemonClient | undefined, format: string, result: ActivityQueryResult): Promise<number> {
  const session = stringOption(context.values, 'session');
  if (session === undefined) {
    throw new TabmuxError('invalid_params', '--export needs --session ID: a report covers one session');
  }
  const meta = { profile: context.profile, session, exportedAt: Date.now(), ...(format === 'html' ? { pictures: await picturesOf(context, client, result.entries) } : {}) };
  const text = format === 'html' ? renderActivityReport(result.entries, meta) : `${JSON.stringify(activityExport(result.entries, meta), null, 2)}\n`;
  const out = stringOption(context.values, 'out');
  if (out === undefined) {
    context.stdout(text);
  } else {
    await fs.writeFile(out, text, { mode: 0o600 });
    context.stderr(`wrote ${result.entries.length} calls of ${session} to ${out}`);
  }
  return 0;
}

/** How long `log --follow` waits for the daemon to be back after a restart, or after it went away without stopping. */
export const RESUME_WITHIN_MS = 10_000;
/** How far back a resumed follow looks for calls logged while it was away: an entry is dated by when its call began. */
const RESUME_LOOKBACK_MS = 15 * 60_000;
/** How often it looks for the daemon meanwhile. */
const LOOK_EVERY_MS = 200;

/**
 * Prints what the log holds, then every new entry as the daemon reports it. A daemon that restarts (`daemon restart`,
 * an upgrade) or goes away without stopping (a crash an agent's bridge recovers from) is followed on once it is back,
 * with the calls logged meanwhile, each entry printed once; the follow ends when the daemon stops, or does not come
 * back within RESUME_WITHIN_MS.
 */
async function follow(context: CommandContext, first: DaemonClient, filter: ActivityFilter, print: (entry: ActivityEntry) => void): Promise<number> {
  const printed = new Map<string, number>();
  let newest = Date.now();
  const show = (entry: ActivityEntry): void => {
    if (!printed.has(entry.id)) {
      printed.set(entry.id, entry.at);
      newest = Math.max(newest, entry.at);
      print(entry);
    }
  };
  let client = first;
  let round = filter;
  for (;;) {
    const ended = await followOne(context, client, round, show);
    client.close();
    if (ended === 'stopped') {
      return 0;
    }
    context.stderr(
      ended === 'restarting'
        ? `tabmux: the daemon for profile ${context.profile} is restarting; following on once it is back`
        : `tabmux: lost the daemon for profile ${context.profile}; following on if it is back within ${RESUME_WITHIN_MS / 1000} s`,
    );
    const next = await daemonBack(context);
    if (next === undefined) {
      context.stderr(`tabmux: the daemon for profile ${context.profile} is not back; stopped following`);
      return 0;
    }
    const since = Math.max(filter.since ?? 0, newest - RESUME_LOOKBACK_MS);
    for (const [id, at] of printed) {
      // Only entries the next query can return again are kept to tell them apart.
      if (at < since) {
        printed.delete(id);
      }
    }
    round = { ...filter, since, limit: EXPORT_LIMIT };
    client = next;
  }
}

/** Follows one daemon until it goes away: `stopped` for good, `restarting`, or `lost` without a word. */
async function followOne(context: CommandContext, client: DaemonClient, filter: ActivityFilter, show: (entry: ActivityEntry) => void): Promise<'stopped' | 'restarting' | 'lost'> {
  let stopping: 'stopped' | 'restarting' | undefined;
  const early: ActivityEntry[] = [];
  let live = false;
  let gone = false;
  const closed = new Promise<void>((resolve) =>
    client.onClose(() => {
      gone = true;
      resolve();
    }),
  );
  client.onEvent((event) => {
    if (event.type === 'daemon' && event.profile === context.profile && event.state === 'stopping') {
      stopping = event.restarting === true ? 'restarting' : 'stopped';
      return;
    }
    if (event.type !== 'activity' || event.profile !== context.profile || !matches(event.entry, { ...filter, since: undefined })) {
      return;
    }
    if (live) {
      show(event.entry);
    } else {
      early.push(event.entry);
    }
  });
  try {
    // Subscribed before the query, so nothing answered in between is missed; what both carry is printed once.
    await client.call('tabmux/subscribe');
    const result = await query(context, client, filter);
    for (const entry of result.entries) {
      show(entry);
    }
  } catch (error) {
    // A daemon that goes away meanwhile is followed on like one that goes away later.
    if (!gone) {
      throw error;
    }
  }
  for (const entry of early) {
    show(entry);
  }
  live = true;
  await closed;
  return stopping ?? 'lost';
}

/** The profile's daemon once it answers again, within RESUME_WITHIN_MS; never one started for this. */
async function daemonBack(context: CommandContext): Promise<DaemonClient | undefined> {
  const deadline = Date.now() + RESUME_WITHIN_MS;
  while (Date.now() < deadline) {
    const client = await tryConnect(context.paths, context.profile, 'tabmux-cli', { looksOnly: true }).catch(() => undefined);
    if (client !== undefined) {
      return client;
    }
    await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
  }
  return undefined;
}

export const logCommands: Command[] = [
  {
    words: ['log'],
    usage: 'tabmux log [--session ID] [--since TIME] [--tool NAMES] [--outcome OUTCOMES] [--limit N] [--follow] [--json] | log --session ID --export html|json [--out FILE]',
    summary: "What agents did: each call's tool, arguments (typed values redacted), outcome and pages; TIME is ISO or 10m, 2h, 7d",
    options: {
      session: { type: 'string', short: 's' },
      since: { type: 'string' },
      tool: { type: 'string', multiple: true },
      outcome: { type: 'string', multiple: true },
      limit: { type: 'string' },
      follow: { type: 'boolean', short: 'f' },
      export: { type: 'string' },
      out: { type: 'string' },
    },
    optionHelp: {
      session: { text: "only this session's calls", value: 'ID', default: 'every session' },
      since: { text: 'only calls from this time on: an ISO time, or an age like 10m, 2h, 7d', value: 'TIME', default: 'all the log keeps' },
      tool: { text: 'only calls of these tools, comma-separated or repeated', value: 'NAMES', default: 'every tool' },
      outcome: { text: `only calls that ended so, comma-separated or repeated: ${ACTIVITY_OUTCOMES.join(', ')}`, value: 'OUTCOMES', default: 'any outcome' },
      limit: { text: `at most this many calls, the newest (1 to ${EXPORT_LIMIT})`, value: 'N', default: `${DEFAULT_LIMIT}; ${EXPORT_LIMIT} with --export` },
      follow: { text: 'keep printing new calls as agents make them, until the daemon stops (needs it running); across a daemon restart or a crash it is back from within 10 s, it follows on, with the calls logged meanwhile' },
      export: { text: "write one session's calls as a report: html (with pictures) or json", value: 'html|json' },
      out: { text: 'write the --export report to this file', value: 'FILE', default: 'stdout' },
    },
    examples: ['tabmux log --since 10m', 'tabmux log --outcome rejected,tool_error --since 1h', 'tabmux log --tool navigate_page,new_page', 'tabmux log --session "$S" --follow', 'tabmux log --session "$S" --export html --out report.html'],
    run: async (context) => {
      const format = stringOption(context.values, 'export');
      if (format !== undefined && format !== 'html' && format !== 'json') {
        throw new TabmuxError('invalid_params', '--export must be html or json');
      }
      const followLog = boolOption(context.values, 'follow');
      if (format !== undefined && followLog) {
        throw new TabmuxError('invalid_params', '--export writes what the log holds now; it does not take --follow');
      }
      const filter = filterOf(context, format === undefined ? DEFAULT_LIMIT : EXPORT_LIMIT);
      const client = await tryConnect(context.paths, context.profile, 'tabmux-cli', { looksOnly: true });
      try {
        if (followLog) {
          if (!client) {
            throw new TabmuxError('daemon_not_running', `--follow needs the daemon of profile ${context.profile}; start it with: tabmux daemon start --profile ${context.profile} (without --follow, the log is read from its files)`);
          }
          return await follow(context, client, filter, (entry) => context.stdout(context.json ? JSON.stringify(entry) : formatActivityLine(entry)));
        }
        const result = await query(context, client, filter);
        if (format !== undefined) {
          return await exportLog(context, client, format, result);
        }
        if (context.json) {
          context.stdout(JSON.stringify(result.entries, null, 2));
        } else if (result.entries.length === 0) {
          context.stdout('no activity');
        } else {
          context.stdout(result.entries.map(formatActivityLine).join('\n'));
        }
        if (result.truncated) {
          context.stderr(`showing the newest ${filter.limit}; use --since or --limit for others`);
        }
        return 0;
      } finally {
        client?.close();
      }
    },
  },
];
