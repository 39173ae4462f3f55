import type { ParseArgsConfig } from 'node:util';
import type { TabmuxPaths } from '../core/platform/paths.js';
import type { EntryPoints } from './EntryPoints.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface CommandContext {
  paths: TabmuxPaths;
  profile: string;
  json: boolean;
  values: OptionValues;
  positionals: string[];
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The programs behind `daemon run`, `dashboard` and `mcp serve`, supplied by electron/bin. */
  entryPoints: EntryPoints;
}

/** What `--help` says about one option: its meaning, the value it takes, its default and the variable that also sets it. */
export interface OptionHelp {
  /** What the option does, one sentence. */
  text: string;
  /** The placeholder for its value in help (`ID`, `PATH`); string options only. */
  value?: string;
  /** The default, in words, when the option is not given. */
  default?: string;
  /** The environment variable that sets the same thing, when there is one. */
  env?: string;
}

/**
 * The options commands share, described once so that every command's help says the same about them. A command whose
 * option means something of its own describes it in `optionHelp`; a unit test checks that every option of every
 * command is described one way or the other, so help cannot fall behind the options a command parses.
 */
export const OPTION_HELP: Readonly<Record<string, OptionHelp>> = {
  profile: { text: 'the tabmux profile (a Chrome user-data-dir and its daemon) to act on', value: 'NAME', default: '"default"' },
  json: { text: 'print machine-readable JSON on stdout; errors too, as {"error": {"code", "message"}}' },
  help: { text: 'show this help' },
  session: { text: 'the session to act in (an id like sess-0123456789abcdef, as session create or session list print it)', value: 'ID' },
  chrome: { text: 'the Chrome or Chromium to launch when this command starts the daemon', value: 'PATH', default: "the profile's chrome, else one found in the usual places", env: 'TABMUX_CHROME' },
  headless: { text: 'run Chrome without a window when this command starts the daemon', default: "the profile's headless; else headed, or headless on Linux without a display", env: 'TABMUX_HEADLESS=1' },
  'no-headless': { text: 'run Chrome with a window even where headless is the default' },
  label: { text: 'a name for the session, shown in session list and the dashboard (1 to 200 characters)', value: 'TEXT' },
  page: { text: 'a page id, as tabmux pages shows it in its PAGE column', value: 'PAGE' },
  all: { text: 'every profile that has a daemon running' },
  'started-by': { text: 'what starts this daemon (demand, daemon-start or app), passed by the command that starts it in the background; demand lets it exit when idle', value: 'WHO' },
};

/** One CLI command, declared as data: its words, options, usage and what it does. Exit code is the result. */
export interface Command {
  words: readonly string[];
  usage: string;
  summary: string;
  options?: OptionSpec;
  /** Descriptions of this command's options that OPTION_HELP does not have, or that mean something else here. */
  optionHelp?: Readonly<Record<string, OptionHelp>>;
  /** Command lines to copy, at least one; `--help` shows them. */
  examples?: readonly string[];
  /** The command does not act on one existing profile (`profile add`, `dashboard`, `doctor`): --profile is not checked. */
  anyProfile?: boolean;
  /** Positional arguments allowed after the command words: [min, max]. */
  positionals?: readonly [number, number];
  run: (context: CommandContext) => Promise<number>;
}

export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function boolOption(values: OptionValues, name: string): boolean {
  return values[name] === true;
}

/** A repeatable option's values, in order (none when it was not given). */
export function stringsOption(values: OptionValues, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Prints a command's result: `json` with --json, else `text`. */
export function printResult(context: CommandContext, json: unknown, text: string): void {
  context.stdout(context.json ? JSON.stringify(json, null, 2) : text);
}
