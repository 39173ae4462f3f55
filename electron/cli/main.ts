import { tabmuxVersion } from '../core/platform/version.js';
import { ProfileStore } from '../core/profile/ProfileStore.js';
import { COMMANDS } from './commands.js';
import { runComplete } from './completionCommand.js';
import type { EntryPoints } from './EntryPoints.js';
import { overallHelp } from './helpText.js';
import { defaultIo, EXIT, runCommand, type CliIo } from './runCommand.js';

export type { CliIo } from './runCommand.js';

export function helpText(): string {
  return overallHelp(`tabmux ${tabmuxVersion()}: many agents, one logged-in Chrome profile, each agent in its own tab.`, COMMANDS);
}

/**
 * Runs the CLI and returns its exit code: 0 success, 1 failure, 2 usage error, 3 daemon not running. Every command
 * that acts on a profile first checks that it exists, so a typo in --profile says so the same way everywhere.
 */
export async function runCli(argv: readonly string[], entryPoints: EntryPoints, io: CliIo = defaultIo): Promise<number> {
  if (argv[0] === 'help' && argv.length > 1) {
    return runCli([...argv.slice(1), '--help'], entryPoints, io);
  }
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io.stdout(helpText());
    return EXIT.ok;
  }
  if (argv[0] === '__complete') {
    return runComplete(argv.slice(1), COMMANDS, io);
  }
  if (argv[0] === '--version' || argv[0] === 'version') {
    io.stdout(tabmuxVersion());
    return EXIT.ok;
  }
  return runCommand(argv, COMMANDS, entryPoints, io, {
    // The same error, in the same words, as a daemon asked to start for a profile that does not exist.
    checkProfile: async (paths, profile) => {
      await new ProfileStore(paths).get(profile);
    },
  });
}
