import { parseArgs } from 'node:util';
import { TabmuxError } from '../../shared/errors.js';
import { resolvePaths } from '../core/paths.js';
import { DEFAULT_PROFILE, validateProfileName } from '../core/ProfileStore.js';
import { tabmuxVersion } from '../core/version.js';
import type { Command } from './Command.js';
import { COMMANDS } from './commands.js';
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

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
};

function findCommand(args: readonly string[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const command of COMMANDS) {
    if (command.words.every((word, index) => args[index] === word) && (!best || command.words.length > best.words.length)) {
      best = command;
    }
  }
  return best ? { command: best, rest: args.slice(best.words.length) } : undefined;
}

export function helpText(): string {
  const lines = [
    `tabmux ${tabmuxVersion()}: many agents, one logged-in Chrome profile, each agent in its own tab.`,
    '',
    'Usage:',
    ...COMMANDS.map((command) => `  ${command.usage}\n      ${command.summary}`),
    '',
    'Every command takes --profile NAME (default "default") and --json. Set TABMUX_HOME to keep all files in one folder.',
  ];
  return lines.join('\n');
}

/** Runs the CLI and returns its exit code: 0 success, 1 failure, 2 usage error, 3 daemon not running (status). */
export async function runCli(argv: readonly string[], entryPoints: EntryPoints, io: CliIo = defaultIo): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io.stdout(helpText());
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version' || argv[0] === 'version') {
    io.stdout(tabmuxVersion());
    return 0;
  }
  const found = findCommand(argv);
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
