import type { ParseArgsConfig } from 'node:util';
import type { TabmuxPaths } from '../core/paths.js';
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

/** One CLI command, declared as data: its words, options, usage and what it does. Exit code is the result. */
export interface Command {
  words: readonly string[];
  usage: string;
  summary: string;
  options?: OptionSpec;
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
