import { compilePattern, describeRule, hostnameOf, type PolicyRule } from '../../../shared/policy.js';

export { compilePattern, describeRule } from '../../../shared/policy.js';

/** What the policies say about one call: refused (by a deny rule, or outside every allow rule), or held for a person. */
export type PolicyDecision = { action: 'deny'; rule: PolicyRule; message: string } | { action: 'confirm'; rule: PolicyRule };

interface Compiled {
  rule: PolicyRule;
  /** Matches the whole URL (`https://*.shop.com/*`), or its host alone for a pattern without `://`. */
  test: (url: string, host: () => string) => boolean;
}

interface ToolRules {
  deny: Compiled[];
  allow: Compiled[];
  confirm: Compiled[];
}

/**
 * A profile's policy rules, compiled and indexed by tool name, so that a call of a tool no rule names costs one map
 * lookup. Rules only ever see the URL the router knows itself (the tab's URL from the browser, the target of a
 * navigation): never text a page wrote.
 */
export class PolicySet {
  static readonly EMPTY = new PolicySet([]);
  readonly rules: readonly PolicyRule[];
  readonly #byTool = new Map<string, ToolRules>();

  constructor(rules: readonly PolicyRule[]) {
    this.rules = rules;
    for (const rule of rules) {
      const test = compilePattern(rule.url);
      for (const tool of rule.tools) {
        let entry = this.#byTool.get(tool);
        if (!entry) {
          entry = { deny: [], allow: [], confirm: [] };
          this.#byTool.set(tool, entry);
        }
        entry[rule.action].push({ rule, test });
      }
    }
  }

  /** Whether any rule names the tool: a caller that would work out the call's URL first need not, when none does. */
  covers(tool: string): boolean {
    return this.#byTool.has(tool);
  }

  /** The decision for a call of `tool` at `url`; undefined when it may run as it is. */
  check(tool: string, url: string): PolicyDecision | undefined {
    const entry = this.#byTool.get(tool);
    if (!entry) {
      return undefined;
    }
    let host: string | undefined;
    const hostOf = (): string => (host ??= hostnameOf(url));
    const denied = entry.deny.find((candidate) => candidate.test(url, hostOf));
    if (denied) {
      return { action: 'deny', rule: denied.rule, message: `${tool} on ${url} is refused by policy ${describeRule(denied.rule)}` };
    }
    if (entry.allow.length > 0 && !entry.allow.some((candidate) => candidate.test(url, hostOf))) {
      const allowed = entry.allow.map((candidate) => candidate.rule);
      const first = allowed[0];
      if (first) {
        return {
          action: 'deny',
          rule: first,
          message: `${tool} on ${url} is refused: this profile allows ${tool} only on ${allowed.map((rule) => `${rule.url} (policy ${rule.id})`).join(', ')}`,
        };
      }
    }
    const confirm = entry.confirm.find((candidate) => candidate.test(url, hostOf));
    return confirm ? { action: 'confirm', rule: confirm.rule } : undefined;
  }
}
