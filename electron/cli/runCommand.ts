import { parseArgs } from 'node:util';
import { TabmuxError } from '../../shared/errors.js';
import { terminalSafe } from '../../shared/terminalText.js';
import { resolvePaths } from '../core/paths.js';
import { DEFAULT_PROFILE, validateProfileName } from '../core/validateProfileName.js';
import type { Command } from './Command.js';
import type { EntryPoints } from './EntryPoints.js';

const GLOBAL_OPTIONS = {
  profile: { type: 'string', short: 'p' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

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
 * Finds the command named by `argv` in `commands`, parses its options and runs it; returns the exit code: 0 success,
 * 1 failure, 2 usage error, 3 daemon not running (status). The table is a parameter so that an entry point that
 * serves one command can load that command alone.
 */
export async function runCommand(argv: readonly string[], commands: readonly Command[], entryPoints: EntryPoints, given: CliIo = defaultIo): Promise<number> {
  const io = terminalIo(given);
  const found = findCommand(argv, commands);
  if (!found) {
    io.stderr(`tabmux: unknown command "${argv.filter((arg) => !arg.startsWith('-')).slice(0, 2).join(' ')}"; run tabmux --help`);
    return 2;
  }
  const { command, rest } = found;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...rest], options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true, strict: true });
  } catch (error) {
    io.stderr(`tabmux: ${error instanceof Error ? error.message : String(error)}\nusage: ${command.usage}`);
    return 2;
  }
  if (parsed.values['help'] === true) {
    io.stdout(`usage: ${command.usage}\n${command.summary}`);
    return 0;
  }
  const [min, max] = command.positionals ?? [0, 0];
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    io.stderr(`tabmux: wrong number of arguments\nusage: ${command.usage}`);
    return 2;
  }
  const profileValue = parsed.values['profile'];
  const json = parsed.values['json'] === true;
  try {
    const profile = validateProfileName(typeof profileValue === 'string' ? profileValue : DEFAULT_PROFILE);
    return await command.run({ paths: resolvePaths(), profile, json, values: parsed.values, positionals: parsed.positionals, entryPoints, ...io });
  } catch (error) {
    const failure = TabmuxError.from(error);
    if (json) {
      io.stderr(JSON.stringify({ error: { code: failure.code, message: failure.message } }));
    } else {
      io.stderr(`tabmux: ${failure.message}`);
    }
    return failure.code === 'invalid_params' ? 2 : 1;
  }
}
