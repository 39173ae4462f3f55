import { isRecord } from '../../../shared/isRecord.js';
import { REDACTED, redactUrl, redactUrlsIn, SENSITIVE_NAME } from './redactUrl.js';

/**
 * Which arguments of each upstream tool (chrome-devtools-mcp, as pinned) carry what an agent typed or sent: their
 * values never reach the activity log unless the profile keeps them (`logValues`). A path is a property name, or
 * `name[]` for every element of an array. `headers` marks a JSON string of HTTP headers whose names are kept and
 * whose values are not. `prompt` marks a dialog answer: `accept` and `dismiss` are kept, any other string is what the
 * agent typed into a prompt. Tools not listed here are unknown to this table: every argument whose name could carry a
 * value or a credential (SENSITIVE_NAME) is redacted, at any depth. Every string left is then redacted as a URL (an
 * argument named `url`) or as text that may hold URLs (a script, a text to wait for), wherever it is.
 */
export const REDACTION_RULES: Readonly<Record<string, readonly string[]>> = {
  fill: ['value'],
  fill_form: ['elements[].value'],
  type_text: ['text'],
  press_key: ['key'],
  handle_dialog: ['promptText'],
  emulate: ['headers:extraHttpHeaders'],
  // Known tools whose arguments are uids, urls, coordinates, names of files or options: nothing typed.
  click: [],
  click_at: [],
  hover: [],
  drag: [],
  upload_file: [],
  take_snapshot: [],
  take_screenshot: [],
  wait_for: [],
  navigate_page: [],
  new_page: [],
  list_pages: [],
  select_page: [],
  close_page: [],
  resize_page: [],
  evaluate_script: ['prompt:dialogAction'],
  list_console_messages: [],
  get_console_message: [],
  list_network_requests: [],
  get_network_request: [],
  performance_start_trace: [],
  performance_stop_trace: [],
  performance_analyze_insight: [],
  lighthouse_audit: [],
  close_session: [],
  // The agent's own words to its person, meant to be read.
  ask_human: [],
};

export interface RedactedArgs {
  args: Record<string, unknown>;
  /** Paths of the values that were replaced, e.g. `value`, `elements[1].value`. */
  redacted: string[];
  /** The replaced strings themselves, kept in memory only, so they can be cut out of answers too. */
  secrets: string[];
}

/** The arguments of one call as the activity log writes them. */
export function redactArgs(tool: string, args: Record<string, unknown>): RedactedArgs {
  const out: RedactedArgs = { args: {}, redacted: [], secrets: [] };
  const rules = REDACTION_RULES[tool];
  out.args = rules === undefined ? redactByName(args, '', out) : redactByRules(args, rules, out);
  return out;
}

function redactByRules(args: Record<string, unknown>, rules: readonly string[], out: RedactedArgs): Record<string, unknown> {
  // Typed values are hidden first, whole, so that each is remembered as typed (and cut out of answers as such).
  const copy = { ...args };
  for (const rule of rules) {
    if (rule.startsWith('headers:')) {
      const name = rule.slice('headers:'.length);
      if (name in copy) {
        copy[name] = redactHeaders(copy[name], name, out);
      }
      continue;
    }
    if (rule.startsWith('prompt:')) {
      const name = rule.slice('prompt:'.length);
      const answer = copy[name];
      if (answer !== undefined && !DIALOG_ACTIONS.has(answer)) {
        copy[name] = hide(answer, name, out);
      }
      continue;
    }
    const [head, tail] = rule.split('[].');
    if (tail !== undefined && head !== undefined) {
      const list = copy[head];
      if (Array.isArray(list)) {
        copy[head] = list.map((item: unknown, index) => (isRecord(item) && tail in item ? { ...item, [tail]: hide(item[tail], `${head}[${index}].${tail}`, out) } : item));
      }
    } else if (rule in copy) {
      copy[rule] = hide(copy[rule], rule, out);
    }
  }
  return redactStrings(copy, out);
}

/** What a dialog answer may be besides text typed into a prompt (upstream's own words). */
const DIALOG_ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'dismiss']);

function redactByName(value: Record<string, unknown>, prefix: string, out: RedactedArgs): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${name}` : name;
    copy[name] = SENSITIVE_NAME.test(name) ? hide(item, path, out) : redactNested(item, name, path, out);
  }
  return copy;
}

function redactNested(value: unknown, name: string, path: string, out: RedactedArgs): unknown {
  if (Array.isArray(value)) {
    return value.map((item: unknown, index) => redactNested(item, name, `${path}[${index}]`, out));
  }
  if (isRecord(value)) {
    return redactByName(value, path, out);
  }
  return typeof value === 'string' ? redactString(name, value, out) : value;
}

/** URLs in every string argument, at any depth (names are not looked at: the rules said what is typed). */
function redactStrings(args: Record<string, unknown>, out: RedactedArgs): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    copy[name] = redactStringsIn(value, name, out);
  }
  return copy;
}

function redactStringsIn(value: unknown, name: string, out: RedactedArgs): unknown {
  if (typeof value === 'string') {
    return redactString(name, value, out);
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown) => redactStringsIn(item, name, out));
  }
  return isRecord(value) ? redactStrings(value, out) : value;
}

/** An argument named `url` is one URL (spaces and all); any other string is text that may hold URLs. */
function redactString(name: string, value: string, out: RedactedArgs): string {
  if (name === 'url') {
    const redacted = redactUrl(value);
    out.secrets.push(...redacted.secrets);
    return redacted.url;
  }
  const redacted = redactUrlsIn(value);
  out.secrets.push(...redacted.secrets);
  return redacted.text;
}

/** Replaces a value (whatever its type) and remembers every string inside it. */
function hide(value: unknown, path: string, out: RedactedArgs): string {
  out.redacted.push(path);
  collectStrings(value, out.secrets);
  return REDACTED;
}

function collectStrings(value: unknown, into: string[]): void {
  if (typeof value === 'string') {
    into.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) {
      collectStrings(item, into);
    }
  } else if (isRecord(value)) {
    for (const item of Object.values(value)) {
      collectStrings(item, into);
    }
  }
}

/** `{"Authorization": "Bearer x"}` as a JSON string: the names stay readable, the values go. */
function redactHeaders(value: unknown, path: string, out: RedactedArgs): unknown {
  if (typeof value !== 'string') {
    return hide(value, path, out);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return value === '' ? value : hide(value, path, out);
  }
  if (!isRecord(parsed)) {
    return hide(value, path, out);
  }
  const names: Record<string, string> = {};
  for (const [name, header] of Object.entries(parsed)) {
    out.redacted.push(`${path}.${name}`);
    collectStrings(header, out.secrets);
    names[name] = REDACTED;
  }
  out.secrets.push(value);
  return JSON.stringify(names);
}
