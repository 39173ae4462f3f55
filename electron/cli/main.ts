import { tabmuxVersion } from '../core/version.js';
import { COMMANDS } from './commands.js';
import type { EntryPoints } from './EntryPoints.js';
import { defaultIo, runCommand, type CliIo } from './runCommand.js';

export type { CliIo } from './runCommand.js';

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
  return runCommand(argv, COMMANDS, entryPoints, io);
}
