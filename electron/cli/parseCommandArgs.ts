import { parseArgs } from 'node:util';
import { closestName } from '../../shared/closestName.js';
import { TabmuxError } from '../../shared/errors.js';
import type { OptionSpec, OptionValues } from './Command.js';

export interface ParsedArgs {
  values: OptionValues;
  positionals: string[];
}

function optionName(rawName: string, name: string): string {
  return rawName.startsWith('--') ? rawName : `-${name} (--${name})`;
}

/**
 * Parses a command's arguments, reporting mistakes in tabmux's words (the option, what it needs, where to look)
 * rather than Node's parser's, which speak of its own API. Node parses leniently and every option token is checked
 * here: an unknown option, a string option without its value, a flag given a value.
 */
export function parseCommandArgs(args: readonly string[], options: OptionSpec, usage: string): ParsedArgs {
  const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: false, tokens: true });
  const byShort = new Map(Object.entries(options).flatMap(([name, spec]) => (spec.short === undefined ? [] : [[spec.short, name] as const])));
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') {
      continue;
    }
    const name = token.rawName.startsWith('--') ? token.name : (byShort.get(token.name) ?? token.name);
    const spec = options[name];
    if (spec === undefined) {
      const meant = token.rawName.startsWith('--') ? closestName(token.name, Object.keys(options)) : undefined;
      const guess = meant === undefined ? '' : ` (did you mean --${meant}?)`;
      throw new TabmuxError('invalid_params', `unknown option ${token.rawName}${guess}; usage: ${usage} (a value that starts with "-" goes after --)`);
    }
    if (spec.type === 'string' && (token.value === undefined || (!token.inlineValue && token.value.startsWith('-') && token.value !== '-'))) {
      const got = token.value === undefined ? '' : ` (got ${token.value}; write ${token.rawName}=${token.value} if that is the value)`;
      throw new TabmuxError('invalid_params', `option ${optionName(token.rawName, name)} needs a value${got}; usage: ${usage}`);
    }
    if (spec.type === 'boolean' && token.value !== undefined) {
      throw new TabmuxError('invalid_params', `option ${optionName(token.rawName, name)} takes no value (got ${token.rawName}=${token.value}); usage: ${usage}`);
    }
  }
  return { values: parsed.values, positionals: parsed.positionals };
}
