import { OPTION_HELP, type Command, type OptionHelp, type OptionSpec } from './Command.js';

/** The options every command takes; runCommand parses them with each command's own. */
export const GLOBAL_OPTIONS = {
  profile: { type: 'string', short: 'p' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpec;

/** The words commands are grouped under (`daemon`, `session`, ...): the first word of a command of two or more. */
export function groupsOf(commands: readonly Command[]): string[] {
  return [...new Set(commands.filter((command) => command.words.length > 1).map((command) => command.words[0] ?? ''))];
}

export function commandsOfGroup(group: string, commands: readonly Command[]): Command[] {
  return commands.filter((command) => command.words.length > 1 && command.words[0] === group);
}

/** How a command's option is described: its own description first, then the shared one. */
export function optionHelpOf(command: Command, name: string): OptionHelp | undefined {
  return command.optionHelp?.[name] ?? OPTION_HELP[name];
}

/** Every option a command parses, its own before the global ones, each once. */
function optionsOf(command: Command): [string, OptionSpec[string]][] {
  const own = Object.entries(command.options ?? {});
  const names = new Set(own.map(([name]) => name));
  return [...own, ...Object.entries(GLOBAL_OPTIONS).filter(([name]) => !names.has(name))];
}

/** Names of options of `command` that nothing describes: the unit test of the command table keeps this empty. */
export function undescribedOptions(command: Command): string[] {
  return optionsOf(command)
    .map(([name]) => name)
    .filter((name) => optionHelpOf(command, name) === undefined);
}

function optionLine(command: Command, name: string, spec: OptionSpec[string]): string {
  const help = optionHelpOf(command, name);
  const short = spec.short === undefined ? '' : `, -${spec.short}`;
  const value = spec.type === 'string' ? ` ${help?.value ?? 'VALUE'}` : '';
  const notes = [
    spec.multiple === true ? 'may be given more than once' : undefined,
    help?.default === undefined ? undefined : `default: ${help.default}`,
    help?.env === undefined ? undefined : `environment: ${help.env}`,
  ].filter((note) => note !== undefined);
  return `  --${name}${short}${value}\n      ${help?.text ?? ''}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

/** `tabmux COMMAND --help`: usage, what it does, every option with its default and variable, and examples. */
export function commandHelp(command: Command): string {
  const lines = [`usage: ${command.usage}`, '', command.summary, '', 'Options:', ...optionsOf(command).map(([name, spec]) => optionLine(command, name, spec))];
  if (command.examples && command.examples.length > 0) {
    lines.push('', 'Examples:', ...command.examples.map((example) => `  ${example}`));
  }
  lines.push('', EXIT_CODES_LINE);
  return lines.join('\n');
}

/** The exit codes every command follows, as help shows them. */
export const EXIT_CODES_LINE = 'Exit codes: 0 ok, 1 failure, 2 usage error, 3 daemon not running.';

function listing(commands: readonly Command[]): string[] {
  const names = commands.map((command) => `tabmux ${command.words.join(' ')}`);
  const width = Math.max(0, ...names.map((name) => name.length));
  return commands.map((command, index) => `  ${(names[index] ?? '').padEnd(width)}  ${command.summary}`);
}

/** `tabmux GROUP --help` (and bare `tabmux GROUP`): the group's commands, each with its summary. */
export function groupHelp(group: string, commands: readonly Command[]): string {
  return [`tabmux ${group} commands:`, ...listing(commandsOfGroup(group, commands)), '', `Run tabmux ${group} COMMAND --help for a command's options and examples.`].join('\n');
}

/** `tabmux`, `tabmux --help`: every command, grouped as the table has them. */
export function overallHelp(title: string, commands: readonly Command[]): string {
  const singles = commands.filter((command) => command.words.length === 1);
  const lines = [title, ''];
  for (const group of groupsOf(commands)) {
    lines.push(`${group}:`, ...listing(commandsOfGroup(group, commands)), '');
  }
  if (singles.length > 0) {
    lines.push('other:', ...listing(singles), '');
  }
  lines.push(
    'Every command takes --profile NAME (default "default"), --json (output and errors as JSON on stdout) and --help.',
    'Set TABMUX_HOME to keep all files in one folder. Run tabmux COMMAND --help for its options and examples.',
    EXIT_CODES_LINE,
  );
  return lines.join('\n');
}
