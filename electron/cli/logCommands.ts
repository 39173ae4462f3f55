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

/** Prints what the log holds, then every new entry as the daemon reports it, until the daemon goes away. */
async function follow(context: CommandContext, client: DaemonClient, filter: ActivityFilter, print: (entry: ActivityEntry) => void): Promise<number> {
  const early: ActivityEntry[] = [];
  let live = false;
  const seen = new Set<string>();
  const closed = new Promise<void>((resolve) => client.onClose(resolve));
  client.onEvent((event) => {
    if (event.type !== 'activity' || event.profile !== context.profile || !matches(event.entry, { ...filter, since: undefined })) {
      return;
    }
    if (live) {
      print(event.entry);
    } else {
      early.push(event.entry);
    }
  });
  // Subscribed before the query, so nothing answered in between is missed; what both carry is printed once.
  await client.call('tabmux/subscribe');
  const result = await query(context, client, filter);
  for (const entry of result.entries) {
    seen.add(entry.id);
    print(entry);
  }
  for (const entry of early) {
    if (!seen.has(entry.id)) {
      print(entry);
    }
  }
  live = true;
  await closed;
  return 0;
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
      follow: { text: 'keep printing new calls as agents make them, until the daemon stops (needs it running)' },
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
