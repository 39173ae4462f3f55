import * as z from 'zod/mini';
import '../../shared/zodMessages.js';
import { TabmuxError } from '../../shared/errors.js';

/**
 * `tabmux mcp batch` scripts: a JSON list of steps. A step may name itself with `id`, and its args may refer to
 * earlier results, so a whole flow (snapshot, then click the button called "Go") runs in one script:
 *
 * - `{"$uid": {"role": "button", "name": "Go", "from": "snap"}}`: the first uid token in step `snap`'s result (default:
 *   the latest step whose result holds a snapshot) whose line has that role and accessible name (`nameContains` for a
 *   substring match). A role or name alone also works.
 * - `{"$match": {"regex": "Tab ID: (\\w+)", "from": "step"}}`: the first capture group (or whole match) in a result.
 * - `{"$text": "step"}`: the whole text of a step's result.
 */
export const batchStepSchema = z.object({
  id: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
  tool: z.string().check(z.minLength(1), z.maxLength(200)),
  args: z._default(z.record(z.string(), z.unknown()), {}),
});

export const batchScriptSchema = z.array(batchStepSchema).check(z.maxLength(1000));

export type BatchStep = z.infer<typeof batchStepSchema>;

export interface StepOutcome {
  id: string | undefined;
  text: string;
}

export function parseBatchScript(json: unknown): BatchStep[] {
  const parsed = batchScriptSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const [step, ...field] = issue?.path ?? [];
    // Steps are counted from 1, as the batch prints them ("[2/5]").
    const where = typeof step === 'number' ? `step ${step + 1}${field.length > 0 ? ` "${field.join('.')}"` : ''}: ` : '';
    throw new TabmuxError('invalid_params', `batch script: ${where}${issue?.message ?? 'malformed'}; expected a JSON list of {"tool": ..., "args": {...}}`);
  }
  return parsed.data;
}

const SNAPSHOT_LINE = /uid=(\S+) (\S+)(?: "((?:[^"\\]|\\.)*)")?/;

/** Replaces every reference in `args` with the value it points at in earlier outcomes. */
export function resolveReferences(args: Record<string, unknown>, earlier: readonly StepOutcome[]): Record<string, unknown> {
  const resolved = resolveValue(args, earlier);
  if (typeof resolved !== 'object' || resolved === null || Array.isArray(resolved)) {
    throw new TabmuxError('invalid_params', 'batch step args must stay an object');
  }
  return Object.fromEntries(Object.entries(resolved));
}

function resolveValue(value: unknown, earlier: readonly StepOutcome[]): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => resolveValue(item, earlier));
  }
  if (typeof value !== 'object' || value === null) {
    return value;
  }
  const entries = Object.entries(value);
  const [key, spec] = entries[0] ?? [];
  if (entries.length === 1 && key === '$uid') {
    return resolveUid(spec, earlier);
  }
  if (entries.length === 1 && key === '$match') {
    return resolveMatch(spec, earlier);
  }
  if (entries.length === 1 && key === '$text') {
    return source(typeof spec === 'string' ? spec : undefined, earlier, () => true).text;
  }
  return Object.fromEntries(entries.map(([name, item]) => [name, resolveValue(item, earlier)]));
}

function source(from: string | undefined, earlier: readonly StepOutcome[], fallback: (outcome: StepOutcome) => boolean): StepOutcome {
  if (from !== undefined) {
    const found = earlier.find((outcome) => outcome.id === from);
    if (!found) {
      throw new TabmuxError('invalid_params', `batch reference to step "${from}", which has not run (steps name themselves with "id")`);
    }
    return found;
  }
  for (let index = earlier.length - 1; index >= 0; index--) {
    const outcome = earlier[index];
    if (outcome && fallback(outcome)) {
      return outcome;
    }
  }
  throw new TabmuxError('invalid_params', 'batch reference has nothing to refer to yet; run take_snapshot first or name a step with "from"');
}

function resolveUid(spec: unknown, earlier: readonly StepOutcome[]): string {
  const parsed = z
    .object({ role: z.optional(z.string()), name: z.optional(z.string()), nameContains: z.optional(z.string()), from: z.optional(z.string()) })
    .safeParse(spec);
  if (!parsed.success) {
    throw new TabmuxError('invalid_params', '$uid takes {"role"?, "name"?, "nameContains"?, "from"?}');
  }
  const { role, name, nameContains, from } = parsed.data;
  const outcome = source(from, earlier, (candidate) => candidate.text.includes('uid='));
  for (const line of outcome.text.split('\n')) {
    const match = SNAPSHOT_LINE.exec(line);
    if (!match?.[1]) {
      continue;
    }
    const lineName = (match[3] ?? '').replace(/\\(.)/g, '$1');
    if (role !== undefined && match[2] !== role) {
      continue;
    }
    if (name !== undefined && lineName !== name) {
      continue;
    }
    if (nameContains !== undefined && !lineName.includes(nameContains)) {
      continue;
    }
    return match[1];
  }
  const what = [role && `role ${role}`, name !== undefined && `name "${name}"`, nameContains !== undefined && `name containing "${nameContains}"`].filter(Boolean).join(', ');
  const index = earlier.indexOf(outcome);
  const step = `step ${index + 1}${outcome.id === undefined ? '' : ` "${outcome.id}"`}`;
  // What the snapshot has of that role, so a name that changed is seen at once.
  const names = role === undefined ? [] : namesOfRole(outcome.text, role);
  const there = role === undefined ? '' : names.length === 0 ? `; it has no ${role}` : `; its ${role} names: ${names.slice(0, 8).join(', ')}${names.length > 8 ? `, and ${names.length - 8} more` : ''}`;
  throw new TabmuxError('invalid_params', `no element with ${what || 'any role'} in the snapshot of ${step}${there}`);
}

/** The accessible names of a snapshot's elements of one role, quoted, each once. */
function namesOfRole(text: string, role: string): string[] {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const match = SNAPSHOT_LINE.exec(line);
    if (match?.[1] && match[2] === role) {
      names.add(JSON.stringify((match[3] ?? '').replace(/\\(.)/g, '$1')));
    }
  }
  return [...names];
}

function resolveMatch(spec: unknown, earlier: readonly StepOutcome[]): string {
  const parsed = z.object({ regex: z.string(), from: z.optional(z.string()) }).safeParse(spec);
  if (!parsed.success) {
    throw new TabmuxError('invalid_params', '$match takes {"regex", "from"?}');
  }
  let regex: RegExp;
  try {
    regex = new RegExp(parsed.data.regex, 'm');
  } catch (error) {
    throw new TabmuxError('invalid_params', `$match regex is invalid: ${error instanceof Error ? error.message : String(error)}`);
  }
  const outcome = source(parsed.data.from, earlier, (candidate) => regex.test(candidate.text));
  const match = regex.exec(outcome.text);
  if (!match) {
    throw new TabmuxError('invalid_params', `$match found nothing for /${parsed.data.regex}/`);
  }
  return match[1] ?? match[0];
}
