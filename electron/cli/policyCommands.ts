import { randomBytes } from 'node:crypto';
import { TabmuxError } from '../../shared/errors.js';
import { describeRule, makePolicyRule, POLICY_ACTIONS, type PolicyRule } from '../../shared/policy.js';
import { tryConnect } from '../core/lifecycle/daemonProcess.js';
import { ProfileStore } from '../core/profile/ProfileStore.js';
import { stringOption, stringsOption, type Command, type CommandContext } from './Command.js';
import { table } from './format.js';

function print(context: CommandContext, json: unknown, text: string): void {
  context.stdout(context.json ? JSON.stringify(json, null, 2) : text);
}

export function formatPolicies(rules: readonly PolicyRule[]): string {
  if (rules.length === 0) {
    return 'no policies: agents may use every tool on every site';
  }
  const rows = [['ID', 'ACTION', 'TOOLS', 'URL', 'REASON']];
  for (const rule of rules) {
    rows.push([rule.id, rule.action, rule.tools.join(','), rule.url, rule.reason ?? '-']);
  }
  return table(rows);
}

/** The tool names agents see: the running daemon's, or (none running) the pinned upstream's, asked without a browser. */
async function agentToolNames(context: CommandContext): Promise<Set<string>> {
  const client = await tryConnect(context.paths, context.profile, 'tabmux-cli');
  if (client) {
    try {
      return new Set((await client.call('tabmux/tools.list')).tools.map((tool) => tool.name));
    } finally {
      client.close();
    }
  }
  const { agentToolsWithoutBrowser } = await import('../core/router/toolsWithoutBrowser.js');
  return new Set((await agentToolsWithoutBrowser()).map((tool) => tool.name));
}

/** Tells the running daemon (if any) to apply the profile's rules now; says whether one did. */
async function applyNow(context: CommandContext): Promise<boolean> {
  const client = await tryConnect(context.paths, context.profile, 'tabmux-cli');
  if (!client) {
    return false;
  }
  try {
    await client.call('tabmux/policies.reload');
    return true;
  } finally {
    client.close();
  }
}

function applied(context: CommandContext, running: boolean): string {
  return running ? `; every session of profile ${context.profile} follows it from its next call` : `; the daemon of profile ${context.profile} applies it when it starts`;
}

async function parseRule(context: CommandContext): Promise<PolicyRule> {
  const action = stringOption(context.values, 'action');
  if (action === undefined) {
    throw new TabmuxError('invalid_params', `--action must be one of ${POLICY_ACTIONS.join(', ')}`);
  }
  const url = stringOption(context.values, 'url');
  if (url === undefined) {
    throw new TabmuxError('invalid_params', 'missing --url PATTERN: the sites the rule is about, e.g. https://*.example.com/* or *.example.com, or * for all');
  }
  const input = { tools: stringsOption(context.values, 'tool'), url, action, reason: stringOption(context.values, 'reason') };
  // Checked before the tool list is read: a plain mistake needs no worker started to be told.
  makePolicyRule(input, new Set(input.tools.flatMap((names) => names.split(',')).map((name) => name.trim())), 'pol-000000', 0);
  return makePolicyRule(input, await agentToolNames(context), `pol-${randomBytes(3).toString('hex')}`, Date.now());
}

export const policyCommands: Command[] = [
  {
    words: ['policy', 'add'],
    usage: 'tabmux policy add [--profile NAME] --tool NAMES --url PATTERN --action confirm|deny|allow [--reason TEXT]',
    summary: "Add a rule for agents' calls on the profile: deny them, allow the tools only on matching sites, or hold them for your yes",
    options: { tool: { type: 'string', multiple: true }, url: { type: 'string' }, action: { type: 'string' }, reason: { type: 'string' } },
    optionHelp: {
      tool: { text: 'the tools the rule is about, comma-separated or repeated (tabmux mcp list shows them)', value: 'NAMES' },
      url: {
        text: "the sites: the page's URL for page tools, the target for navigate_page and new_page; with :// it matches the whole URL, else the host; * matches anything",
        value: 'PATTERN',
      },
      action: { text: 'deny: refuse matching calls; allow: the tools work only on matching sites; confirm: matching calls wait for your approval', value: 'ACTION' },
      reason: { text: 'why, told to the agent whose call the rule stops', value: 'TEXT' },
    },
    examples: [
      'tabmux policy add --tool navigate_page,new_page --url "*.casino.example" --action deny --reason "no gambling"',
      'tabmux policy add --tool navigate_page,new_page --url "https://*.example.com/*" --action allow',
      'tabmux policy add --tool click --url "https://shop.example.com/checkout*" --action confirm',
    ],
    run: async (context) => {
      const rule = await parseRule(context);
      await new ProfileStore(context.paths).update(context.profile, (config) => ({ ...config, policies: [...(config.policies ?? []), rule] }));
      const running = await applyNow(context);
      print(context, rule, `added policy ${describeRule(rule)}${applied(context, running)}`);
      return 0;
    },
  },
  {
    words: ['policy', 'list'],
    usage: 'tabmux policy list [--profile NAME] [--json]',
    summary: "The profile's rules for agents' calls",
    examples: ['tabmux policy list', 'tabmux policy list --profile work --json'],
    run: async (context) => {
      const rules = (await new ProfileStore(context.paths).get(context.profile)).config.policies ?? [];
      print(context, rules, formatPolicies(rules));
      return 0;
    },
  },
  {
    words: ['policy', 'remove'],
    usage: 'tabmux policy remove ID [--profile NAME]',
    summary: 'Remove a rule (its ID as policy list shows it); running sessions stop following it at once',
    positionals: [1, 1],
    examples: ['tabmux policy remove pol-1a2b3c'],
    run: async (context) => {
      const id = context.positionals[0] ?? '';
      let removed: PolicyRule | undefined;
      await new ProfileStore(context.paths).update(context.profile, (config) => {
        const rules = config.policies ?? [];
        removed = rules.find((rule) => rule.id === id);
        if (!removed) {
          throw new TabmuxError('invalid_params', `profile ${context.profile} has no policy ${id}; tabmux policy list shows its rules`);
        }
        return { ...config, policies: rules.filter((rule) => rule.id !== id) };
      });
      const running = await applyNow(context);
      print(context, { removed: id }, `removed policy ${id}${running ? `; every session of profile ${context.profile} stops following it from its next call` : ''}`);
      return 0;
    },
  },
];
