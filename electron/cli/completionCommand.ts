import { TabmuxError } from '../../shared/errors.js';
import { resolvePaths, type TabmuxPaths } from '../core/platform/paths.js';
import { tryConnect } from '../core/lifecycle/daemonProcess.js';
import { ProfileStore } from '../core/profile/ProfileStore.js';
import type { DaemonClient } from '../core/transport/DaemonClient.js';
import type { Command } from './Command.js';
import { complete, completionScript, formatCandidates, SHELLS, type Candidate, type CompletionSources, type Shell } from './completion.js';
import type { CliIo } from './runCommand.js';

/** How long a completion waits for a daemon's answer before it offers nothing from it: a shell must not hang on a Tab. */
const LOOK_WITHIN_MS = 1500;

/** `tabmux completion SHELL`: the script that lets the shell complete tabmux's words. */
export const completionCommand: Command = {
  words: ['completion'],
  usage: 'tabmux completion bash|zsh|fish',
  summary: 'Print the script that lets your shell complete tabmux commands, options, profiles, sessions, tools and request ids',
  positionals: [1, 1],
  examples: ['source <(tabmux completion bash)   # in ~/.bashrc', 'source <(tabmux completion zsh)    # in ~/.zshrc, after compinit', 'tabmux completion fish > ~/.config/fish/completions/tabmux.fish'],
  anyProfile: true,
  run: (context) => {
    const shell = context.positionals[0] ?? '';
    if (!isShell(shell)) {
      return Promise.reject(new TabmuxError('invalid_params', `tabmux completion knows ${SHELLS.join(', ')}, not ${JSON.stringify(shell)}`));
    }
    context.stdout(completionScript(shell).trimEnd());
    return Promise.resolve(0);
  },
};

function isShell(value: string): value is Shell {
  return SHELLS.some((shell) => shell === value);
}

/**
 * `tabmux __complete -- tabmux WORD... CURRENT`, which the completion scripts run on each Tab: prints the candidates
 * for CURRENT, one a line. It reads the profiles and, for sessions, tools, pages and requests, a running daemon
 * within a deadline; it never starts a daemon, and whatever fails gives no candidates rather than an error.
 */
export async function runComplete(argv: readonly string[], commands: readonly Command[], io: CliIo): Promise<number> {
  const words = argv[0] === '--' ? argv.slice(2) : argv.slice(1);
  const candidates = await complete(words.length === 0 ? [''] : words, commands, daemonSources(resolvePaths())).catch(() => []);
  const text = formatCandidates(candidates);
  if (text !== '') {
    io.stdout(text);
  }
  return 0;
}

function daemonSources(paths: TabmuxPaths): CompletionSources {
  return {
    profiles: async () => (await new ProfileStore(paths).list()).map((profile) => ({ value: profile.name })),
    sessions: (profile) =>
      look(paths, profile, async (client) =>
        (await client.call('tabmux/session.list')).sessions.map((session) => ({
          value: session.id,
          about: [session.label ?? 'unlabeled', session.paused ? 'paused' : session.activity, session.pages.find((page) => page.pageId === session.currentPageId)?.url].filter(Boolean).join(' · '),
        })),
      ),
    tools: (profile) => look(paths, profile, async (client) => (await client.listTools(false)).map((tool) => ({ value: tool.name, about: tool.description?.split('\n')[0] }))),
    pages: (profile) =>
      look(paths, profile, async (client) =>
        (await client.call('tabmux/tabs.list')).tabs.map((tab) => ({ value: String(tab.pageId), about: [tab.title || tab.url, tab.owner ?? 'unowned'].join(' · ') })),
      ),
    requests: (profile, kind) =>
      look(paths, profile, async (client) =>
        (await client.call('tabmux/requests.list')).requests.filter((request) => request.kind === kind).map((request) => ({ value: request.id, about: `${request.label ?? request.sessionId}: ${request.question}` })),
      ),
  };
}

/** Asks the profile's daemon, if one runs, within LOOK_WITHIN_MS; nothing otherwise. */
async function look(paths: TabmuxPaths, profile: string, ask: (client: DaemonClient) => Promise<Candidate[]>): Promise<Candidate[]> {
  let client: DaemonClient | undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Candidate[]>((resolve) => {
    timer = setTimeout(() => resolve([]), LOOK_WITHIN_MS);
    timer.unref();
  });
  const asked = (async () => {
    // A daemon that does not answer is given up on within the same deadline, so the process ends with it.
    client = await tryConnect(paths, profile, 'tabmux-complete', { looksOnly: true, helloTimeoutMs: LOOK_WITHIN_MS });
    return client === undefined ? [] : ask(client);
  })().catch(() => []);
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
    // A connection that comes after the deadline is closed as it arrives.
    void asked.finally(() => client?.close());
  }
}
