import * as z from 'zod/mini';
import './zodMessages.js';
import { TabmuxError } from './errors.js';

/** What a policy rule does to the calls it matches: hold them for a person's yes, refuse them, or allow only them. */
export const POLICY_ACTIONS = ['confirm', 'deny', 'allow'] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

/**
 * One rule of a profile's policies (the profile's `policies`): tool names × a URL pattern × an action. The URL is the
 * page's for page tools, the target's for `navigate_page` and `new_page`. A pattern with `://` is matched against
 * the whole URL, one without against the host; `*` matches any run of characters, and `*` alone matches every URL.
 */
export const policyRuleSchema = z.lazy(() => z.object({
  /** `pol-<6 hex>`: what `tabmux policy remove` and agents' errors name. */
  id: z.string().check(z.regex(/^pol-[0-9a-f]{6}$/)),
  tools: z.array(z.string().check(z.minLength(1), z.maxLength(200))).check(z.minLength(1), z.maxLength(100)),
  url: z.string().check(z.minLength(1), z.maxLength(2000)),
  action: z.enum(POLICY_ACTIONS),
  reason: z.optional(z.string().check(z.maxLength(1000))),
  createdAt: z.optional(z.number()),
}));
export type PolicyRule = z.output<typeof policyRuleSchema>;

/** A rule as agents and people read it: `pol-1a2b3c (deny navigate_page on *.shop.com: no shopping)`. */
export function describeRule(rule: PolicyRule): string {
  return `${rule.id} (${rule.action} ${rule.tools.join(',')} on ${rule.url}${rule.reason ? `: ${rule.reason}` : ''})`;
}

/**
 * Checks a URL pattern and turns it into a test; an invalid one is a usage error naming it. `*` matches any run of
 * characters; a pattern with `://` is matched against the whole URL, any other against the host (`*.shop.com`).
 */
export function compilePattern(pattern: string): (url: string, host: () => string) => boolean {
  const invalid = (why: string): TabmuxError => new TabmuxError('invalid_params', `invalid URL pattern ${JSON.stringify(pattern)}: ${why}`);
  if (pattern === '' || /\s/.test(pattern) || hasControlCharacter(pattern)) {
    throw invalid('it must be non-empty, without spaces or control characters (e.g. https://*.example.com/* or *.example.com)');
  }
  if (pattern === '*') {
    return () => true;
  }
  const scheme = pattern.indexOf('://');
  if (scheme === -1) {
    if (pattern.includes('/')) {
      throw invalid('a pattern without :// matches a host; to match a path write the whole URL, e.g. https://example.com/checkout*');
    }
    const regex = globRegex(pattern.toLowerCase());
    return (_url, host) => regex.test(host());
  }
  if (!/^[a-z*][a-z0-9+.\-*]*$/i.test(pattern.slice(0, scheme))) {
    throw invalid('the part before :// must be a scheme such as https or *');
  }
  const regex = globRegex(pattern);
  return (url) => regex.test(url);
}

function globRegex(glob: string): RegExp {
  const source = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's');
}

/** The host of a URL, lowercase; empty for one without (about:blank, data:). */
export function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) {
      return true;
    }
  }
  return false;
}

/** What a person gives to add a rule (the CLI's options, the dashboard's form). */
export interface PolicyInput {
  tools: readonly string[];
  url: string;
  action: string;
  reason?: string | undefined;
}

function isAction(value: string): value is PolicyAction {
  return POLICY_ACTIONS.some((action) => action === value);
}

/**
 * A new rule from a person's input, checked: the action, the pattern, and every tool name against the tools agents
 * see (`knownTools`; tabmux's own tools, which never reach the browser, are no rule's business). Any mistake is a
 * usage error that names it.
 */
export function makePolicyRule(input: PolicyInput, knownTools: ReadonlySet<string>, id: string, now: number): PolicyRule {
  const { action, url } = input;
  if (!isAction(action)) {
    throw new TabmuxError('invalid_params', `--action must be one of ${POLICY_ACTIONS.join(', ')} (got ${JSON.stringify(action)})`);
  }
  compilePattern(url);
  const tools = [...new Set(input.tools.flatMap((names) => names.split(',')).map((name) => name.trim()).filter((name) => name !== ''))];
  if (tools.length === 0) {
    throw new TabmuxError('invalid_params', 'missing --tool NAMES: the tools the rule is about, comma-separated (tabmux mcp list shows them)');
  }
  const unknown = tools.filter((name) => !knownTools.has(name) || OWN_TOOLS.has(name));
  if (unknown.length > 0) {
    throw new TabmuxError('invalid_params', `unknown tool ${unknown.join(', ')} in --tool; rules are about browser tools such as navigate_page, click, fill (tabmux mcp list shows them all)`);
  }
  const reason = input.reason?.trim();
  return { id, tools, url, action, ...(reason ? { reason } : {}), createdAt: now };
}

/** Tools of tabmux's own that no rule is about: they never reach the browser. */
export const OWN_TOOLS: ReadonlySet<string> = new Set(['ask_human', 'close_session']);
