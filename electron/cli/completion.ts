import { ACTIVITY_OUTCOMES } from '../../shared/activity.js';
import { POLICY_ACTIONS } from '../../shared/policy.js';
import { terminalSafe } from '../../shared/terminalText.js';
import { OPTION_HELP, type Command, type OptionSpec } from './Command.js';
import { commandsOfGroup, GLOBAL_OPTIONS, groupsOf, optionHelpOf } from './helpText.js';

/** One thing the shell may complete the current word to, and what it is (shown by zsh and fish). */
export interface Candidate {
  value: string;
  about?: string | undefined;
}

/** What completion reads from outside the command table: the profiles, and what a running daemon knows. */
export interface CompletionSources {
  profiles: () => Promise<Candidate[]>;
  /** The profile's sessions, from its daemon if one runs (none otherwise: completion never starts one). */
  sessions: (profile: string) => Promise<Candidate[]>;
  tools: (profile: string) => Promise<Candidate[]>;
  pages: (profile: string) => Promise<Candidate[]>;
  /** What waits for a person: questions (for `answer`) or calls a confirm policy holds (for `approve`, `deny`). */
  requests: (profile: string, kind: 'question' | 'confirm') => Promise<Candidate[]>;
}

/** Printed instead of candidates where the word is a file or folder: the shell completes paths itself. */
export const FILES = ':files';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const FILE_VALUES = new Set(['FILE', 'PATH', 'DIR']);

/** Words before the command's own: the entry points to help and the shell scripts. */
const EXTRA_FIRST_WORDS: Candidate[] = [{ value: 'help', about: 'Show the help of a command or group' }];

/**
 * The candidates for the last of `words` (the word being typed, possibly empty), given the words before it; the
 * program's name is not among them. Options are completed after a `-`, their values after the option, commands and
 * the arguments a command takes elsewhere. A value that is a file's path gives `FILES`.
 */
export async function complete(words: readonly string[], commands: readonly Command[], sources: CompletionSources): Promise<Candidate[] | typeof FILES> {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const found = findCommand(before, commands);
  const options: OptionSpec = { ...GLOBAL_OPTIONS, ...found?.command.options };
  const previous = before.at(-1);
  const profile = valueOf(before, 'profile', 'p') ?? 'default';
  if (previous !== undefined && previous.startsWith('-') && !previous.includes('=') && previous !== '--') {
    const name = optionNamed(previous, options);
    if (name !== undefined && options[name]?.type === 'string') {
      const values = await optionValues(name, found?.command, profile, sources);
      return values === FILES ? FILES : matching(values, current);
    }
  }
  if (current.startsWith('-')) {
    const given = new Set(before.filter((word) => word.startsWith('-')).map((word) => optionNamed(word.split('=')[0] ?? word, options)));
    const candidates = Object.entries(options)
      .filter(([name, spec]) => spec.multiple === true || !given.has(name))
      .map(([name]) => ({ value: `--${name}`, about: found === undefined ? OPTION_HELP[name]?.text : optionHelpOf(found.command, name)?.text }));
    return matching(candidates, current);
  }
  if (found === undefined) {
    const plain = positionals(before, options);
    if (plain.length === 0) {
      const groups = groupsOf(commands).map((group) => ({ value: group, about: `${group} commands` }));
      const single = commands.filter((command) => command.words.length === 1).map((command) => ({ value: command.words[0] ?? '', about: command.summary }));
      return matching([...groups, ...single, ...EXTRA_FIRST_WORDS], current);
    }
    const [first = ''] = plain;
    if (plain.length === 1 && groupsOf(commands).includes(first)) {
      return matching(
        commandsOfGroup(first, commands).map((command) => ({ value: command.words[1] ?? '', about: command.summary })),
        current,
      );
    }
    if (first === 'help') {
      return plain.length === 1 ? matching([...groupsOf(commands), ...commands.filter((command) => command.words.length === 1).map((command) => command.words[0] ?? '')].map((value) => ({ value })), current) : [];
    }
    return [];
  }
  const index = positionals(found.rest, options).length;
  return matching(await positionalValues(found.command.words.join(' '), index, profile, sources), current);
}

/** The command the words name (the longest match) and the words after its own. */
function findCommand(words: readonly string[], commands: readonly Command[]): { command: Command; rest: string[] } | undefined {
  // Before the command is known, an option's value is told from a command word by every option any command has.
  const anyOptions: OptionSpec = { ...GLOBAL_OPTIONS };
  for (const command of commands) {
    Object.assign(anyOptions, command.options);
  }
  const at = positionalIndexes(words, anyOptions);
  let best: Command | undefined;
  for (const command of commands) {
    if (command.words.every((word, index) => words[at[index] ?? -1] === word) && (!best || command.words.length > best.words.length)) {
      best = command;
    }
  }
  return best === undefined ? undefined : { command: best, rest: words.slice((at[best.words.length - 1] ?? 0) + 1) };
}

function optionNamed(word: string, options: OptionSpec): string | undefined {
  if (word.startsWith('--')) {
    return word.slice(2);
  }
  const short = word.slice(1);
  return Object.entries(options).find(([, spec]) => spec.short === short)?.[0];
}

/** The value given to an option among the words (`--profile work`, `-p work`, `--profile=work`), the last one given. */
function valueOf(words: readonly string[], name: string, short: string): string | undefined {
  let value: string | undefined;
  words.forEach((word, index) => {
    if (word === `--${name}` || word === `-${short}`) {
      value = words[index + 1];
    } else if (word.startsWith(`--${name}=`)) {
      value = word.slice(name.length + 3);
    }
  });
  return value;
}

/** The words that are neither options nor an option's value. */
function positionals(words: readonly string[], options: OptionSpec): string[] {
  return positionalIndexes(words, options).map((index) => words[index] ?? '');
}

/** Where the words that are neither options nor an option's value stand. */
function positionalIndexes(words: readonly string[], options: OptionSpec): number[] {
  const at: number[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index] ?? '';
    if (word === '--') {
      for (let rest = index + 1; rest < words.length; rest++) {
        at.push(rest);
      }
      break;
    }
    if (word.startsWith('-') && word !== '-') {
      const name = optionNamed(word, options);
      if (!word.includes('=') && name !== undefined && options[name]?.type === 'string') {
        index++;
      }
      continue;
    }
    at.push(index);
  }
  return at;
}

async function optionValues(name: string, command: Command | undefined, profile: string, sources: CompletionSources): Promise<Candidate[] | typeof FILES> {
  switch (name) {
    case 'profile':
      return sources.profiles();
    case 'session':
      return sources.sessions(profile);
    case 'tool':
      return sources.tools(profile);
    case 'page':
      return sources.pages(profile);
    case 'outcome':
      return ACTIVITY_OUTCOMES.map((value) => ({ value }));
    case 'action':
      return POLICY_ACTIONS.map((value) => ({ value }));
    case 'isolation':
      return [{ value: 'tab', about: 'sessions share windows' }, { value: 'window', about: 'each session gets a window of its own' }];
    case 'export':
      return [{ value: 'html' }, { value: 'json' }];
    default: {
      const placeholder = command === undefined ? undefined : optionHelpOf(command, name)?.value;
      return placeholder !== undefined && FILE_VALUES.has(placeholder) ? FILES : [];
    }
  }
}

async function positionalValues(command: string, index: number, profile: string, sources: CompletionSources): Promise<Candidate[]> {
  if (index !== 0) {
    return [];
  }
  switch (command) {
    case 'mcp call':
      return sources.tools(profile);
    case 'profile remove':
      return sources.profiles();
    case 'answer':
      return sources.requests(profile, 'question');
    case 'approve':
    case 'deny':
      return sources.requests(profile, 'confirm');
    case 'completion':
      return SHELLS.map((value) => ({ value }));
    default:
      return [];
  }
}

function matching(candidates: readonly Candidate[], prefix: string): Candidate[] {
  return candidates.filter((candidate) => candidate.value.startsWith(prefix));
}

/** Candidates as `__complete` prints them: one a line, a tab before what it is; or `FILES`. */
export function formatCandidates(candidates: readonly Candidate[] | typeof FILES): string {
  if (candidates === FILES) {
    return FILES;
  }
  // Descriptions carry text a page wrote (titles, URLs, questions) and labels an agent chose: a shell shows them.
  return candidates.map((candidate) => terminalSafe(candidate.about === undefined ? oneLine(candidate.value) : `${oneLine(candidate.value)}\t${oneLine(candidate.about)}`)).join('\n');
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/**
 * The script that makes a shell complete tabmux's commands, options and values: it asks `tabmux __complete` with the
 * words typed so far, which reads the command table and, for sessions, tools, pages and requests, a running daemon
 * (never starting one).
 */
export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return [
        '# tabmux completion for bash. Load it with: source <(tabmux completion bash)   (add that line to ~/.bashrc to keep it)',
        '_tabmux() {',
        '  local IFS=$\'\\n\' line',
        '  local -a found',
        '  COMPREPLY=()',
        '  found=($(tabmux __complete -- "${COMP_WORDS[@]:0:COMP_CWORD+1}" 2>/dev/null))',
        `  if [[ "\${found[0]}" == "${FILES}" ]]; then`,
        '    compopt -o filenames 2>/dev/null',
        '    COMPREPLY=($(compgen -f -- "${COMP_WORDS[COMP_CWORD]}"))',
        '    return',
        '  fi',
        '  for line in "${found[@]}"; do',
        '    COMPREPLY+=("${line%%$\'\\t\'*}")',
        '  done',
        '}',
        'complete -F _tabmux tabmux',
        '',
      ].join('\n');
    case 'zsh':
      return [
        '# tabmux completion for zsh. Load it with: source <(tabmux completion zsh)   (add that line to ~/.zshrc, after compinit, to keep it)',
        '(( $+functions[compdef] )) || { autoload -U compinit && compinit; }',
        '_tabmux() {',
        '  local -a found described',
        '  local line',
        '  found=("${(@f)$(tabmux __complete -- "${(@)words[1,CURRENT]}" 2>/dev/null)}")',
        `  if [[ "\${found[1]}" == "${FILES}" ]]; then`,
        '    _files',
        '    return',
        '  fi',
        '  for line in "${found[@]}"; do',
        '    [[ -n $line ]] || continue',
        '    if [[ $line == *$\'\\t\'* ]]; then',
        '      described+=("${${line%%$\'\\t\'*}//:/\\\\:}:${line#*$\'\\t\'}")',
        '    else',
        '      described+=("${line//:/\\\\:}")',
        '    fi',
        '  done',
        '  _describe -t values tabmux described',
        '}',
        'compdef _tabmux tabmux',
        '',
      ].join('\n');
    case 'fish':
      return [
        '# tabmux completion for fish. Load it with: tabmux completion fish | source   (or save it as ~/.config/fish/completions/tabmux.fish)',
        'function __tabmux_complete',
        '    set -l current (commandline -ct)',
        '    set -l found (tabmux __complete -- (commandline -opc) "$current" 2>/dev/null)',
        `    if test "$found[1]" = "${FILES}"`,
        '        __fish_complete_path (commandline -ct)',
        '    else',
        "        printf '%s\\n' $found",
        '    end',
        'end',
        "complete -c tabmux -f -a '(__tabmux_complete)'",
        '',
      ].join('\n');
  }
}
