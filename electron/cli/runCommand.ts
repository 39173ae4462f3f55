import { closestName } from '../../shared/closestName.js';
import { TabmuxError, type ErrorCode } from '../../shared/errors.js';
import { terminalSafe } from '../../shared/terminalText.js';
import { resolvePaths } from '../core/platform/paths.js';
import { DEFAULT_PROFILE, validateProfileName } from '../core/profile/validateProfileName.js';
import type { Command } from './Command.js';
import type { EntryPoints } from './EntryPoints.js';
import { commandHelp, GLOBAL_OPTIONS, groupHelp, groupsOf } from './helpText.js';
import { parseCommandArgs } from './parseCommandArgs.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
};

/**
 * What every command prints passes here. Text a page wrote (answers, titles, console messages) and names an agent
 * chose (session labels) may hold terminal controls; they are written as escapes whether the stream is a terminal or
 * a pipe, which often ends at one (`| grep`, `| less -R`). JSON stays exact (see `terminalSafe`), so `--json` is the
 * way to page text byte for byte.
 */
function terminalIo(io: CliIo): CliIo {
  return { stdout: (text) => io.stdout(terminalSafe(text)), stderr: (text) => io.stderr(terminalSafe(text)) };
}

/**
 * The one table of exit codes every command follows: 0 ok, 1 failure, 2 usage error (a wrong command, option or
 * argument), 3 the profile's daemon is not running (where a command needs it and will not start it).
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, notRunning: 3 } as const;

export function exitCodeOf(code: ErrorCode): number {
  switch (code) {
    case 'invalid_params':
      return EXIT.usage;
    case 'daemon_not_running':
      return EXIT.notRunning;
    default:
      return EXIT.failure;
  }
}

/** An error as a command reports it: with --json, one JSON object on stdout (the output scripts read), else text on stderr. */
export function reportError(io: CliIo, json: boolean, error: unknown, exitCode?: number): number {
  const failure = TabmuxError.from(error);
  if (json) {
    io.stdout(JSON.stringify({ error: { code: failure.code, message: failure.message } }));
  } else {
    io.stderr(`tabmux: ${failure.message}`);
  }
  return exitCode ?? exitCodeOf(failure.code);
}

/** What a caller of runCommand may add: a check that the profile a command acts on exists (the full CLI has one). */
export interface RunOptions {
  checkProfile?: (paths: ReturnType<typeof resolvePaths>, profile: string) => Promise<void>;
}

function findCommand(args: readonly string[], commands: readonly Command[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const command of commands) {
    if (command.words.every((word, index) => args[index] === word) && (!best || command.words.length > best.words.length)) {
      best = command;
    }
  }
  return best ? { command: best, rest: args.slice(best.words.length) } : undefined;
}

/**
 * The command a mistyped first word (or first two) most likely meant: a group's name with the next word (`sesion list`),
 * else a command of one word (`pags`), else a group alone (`sesion`).
 */
function closestCommand(argv: readonly string[], commands: readonly Command[]): string | undefined {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  const [first = '', second] = words;
  const names = commands.map((command) => command.words.join(' '));
  if (second !== undefined) {
    const both = closestName(`${first} ${second}`, names.filter((name) => name.includes(' ')));
    if (both !== undefined) {
      return both;
    }
  }
  return closestName(first, [...names.filter((name) => !name.includes(' ')), ...groupsOf(commands)]);
}

/**
 * Finds the command named by `argv` in `commands`, parses its options and runs it; returns the exit code (see EXIT).
 * The table is a parameter so that an entry point that serves one command can load that command alone. A group's
 * name alone (`tabmux session`), or with --help, lists the group's commands.
 */
export async function runCommand(argv: readonly string[], commands: readonly Command[], entryPoints: EntryPoints, given: CliIo = defaultIo, options: RunOptions = {}): Promise<number> {
  const io = terminalIo(given);
  // Before the command is known, --json is looked for anywhere, so that even "no such command" is JSON for a script.
  const wantsJson = argv.includes('--json');
  const found = findCommand(argv, commands);
  if (!found) {
    const [first = ''] = argv;
    if (groupsOf(commands).includes(first)) {
      const asked = argv.slice(1).every((arg) => arg === '--help' || arg === '-h' || arg === '--json') && argv.some((arg) => arg === '--help' || arg === '-h');
      if (asked) {
        io.stdout(groupHelp(first, commands));
        return EXIT.ok;
      }
      const second = argv[1];
      const meant = second === undefined ? undefined : closestName(second, commands.flatMap((command) => (command.words[0] === first && command.words[1] !== undefined ? [command.words[1]] : [])));
      const what =
        second === undefined || second.startsWith('-') ? `tabmux ${first} needs a command` : `unknown command "${first} ${second}"${meant === undefined ? '' : ` (did you mean tabmux ${first} ${meant}?)`}`;
      if (wantsJson) {
        return reportError(io, true, new TabmuxError('invalid_params', `${what}; run tabmux ${first} --help`));
      }
      io.stderr(`tabmux: ${what}\n\n${groupHelp(first, commands)}`);
      return EXIT.usage;
    }
    const named = argv.filter((arg) => !arg.startsWith('-')).slice(0, 2).join(' ');
    const meant = closestCommand(argv, commands);
    const guess = meant === undefined ? '' : ` (did you mean tabmux ${meant}?)`;
    return reportError(io, wantsJson, new TabmuxError('invalid_params', `unknown command "${named}"${guess}; run tabmux --help for the list`));
  }
  const { command, rest } = found;
  try {
    const parsed = parseCommandArgs(rest, { ...GLOBAL_OPTIONS, ...command.options }, command.usage);
    if (parsed.values['help'] === true) {
      io.stdout(commandHelp(command));
      return EXIT.ok;
    }
    const json = parsed.values['json'] === true;
    try {
      const [min, max] = command.positionals ?? [0, 0];
      if (parsed.positionals.length < min || parsed.positionals.length > max) {
        const expected = max === 0 ? 'no arguments' : min === max ? `${min} argument(s)` : `${min} to ${max} arguments`;
        throw new TabmuxError('invalid_params', `tabmux ${command.words.join(' ')} takes ${expected}, got ${parsed.positionals.length}${parsed.positionals.length > 0 ? ` (${parsed.positionals.join(' ')})` : ''}; usage: ${command.usage}`);
      }
      const profileValue = parsed.values['profile'];
      let profile: string;
      try {
        profile = validateProfileName(typeof profileValue === 'string' ? profileValue : DEFAULT_PROFILE);
      } catch (error) {
        // A name that can never be a profile is a mistake in the command line: exit 2, its own code kept for scripts.
        return reportError(io, json, error, EXIT.usage);
      }
      const paths = resolvePaths();
      if (options.checkProfile && command.anyProfile !== true) {
        await options.checkProfile(paths, profile);
      }
      return await command.run({ paths, profile, json, values: parsed.values, positionals: parsed.positionals, entryPoints, ...io });
    } catch (error) {
      return reportError(io, json, error);
    }
  } catch (error) {
    return reportError(io, wantsJson, error);
  }
}
