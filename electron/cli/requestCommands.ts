import { TabmuxError } from '../../shared/errors.js';
import type { HumanRequest } from '../../shared/model.js';
import { tryConnect } from '../core/lifecycle/daemonProcess.js';
import { stringOption, type Command, type CommandContext } from './Command.js';
import { ago, table } from './format.js';

function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The waiting requests as a table: the id to answer with first, the question (and its choices) last. */
export function formatRequests(requests: readonly HumanRequest[], now = Date.now()): string {
  if (requests.length === 0) {
    return 'nothing waits for you';
  }
  const rows = [['ID', 'KIND', 'SESSION', 'LABEL', 'TOOL', 'AGE', 'URL', 'QUESTION OR CALL']];
  for (const request of requests) {
    const choices = request.choices.length > 0 ? ` [${request.choices.join(' / ')}]` : '';
    const args = request.arguments === undefined ? '' : ` ${JSON.stringify(request.arguments)}`;
    rows.push([
      request.id,
      request.kind,
      request.sessionId,
      request.label ?? '-',
      request.tool,
      ago(request.createdAt, now).replace(' ago', ''),
      truncate(request.url ?? '-', 50),
      truncate(request.question + choices + args, 160),
    ]);
  }
  return table(rows);
}

function print(context: CommandContext, json: unknown, text: string): void {
  context.stdout(context.json ? JSON.stringify(json, null, 2) : text);
}

export const requestCommands: Command[] = [
  {
    words: ['requests'],
    usage: 'tabmux requests [--profile NAME] [--json]',
    summary: 'What agents wait on you for: their questions (ask_human) and calls a confirm policy holds, each with the id to answer or decide it by',
    examples: ['tabmux requests', 'tabmux requests --profile work --json'],
    run: async (context) => {
      // Reading starts no daemon: one that does not run has nobody waiting.
      const client = await tryConnect(context.paths, context.profile, 'tabmux-cli', { looksOnly: true });
      if (!client) {
        print(context, [], `nothing waits for you (the daemon for profile ${context.profile} is not running)`);
        return 0;
      }
      try {
        const { requests } = await client.call('tabmux/requests.list');
        print(context, requests, formatRequests(requests));
        return 0;
      } finally {
        client.close();
      }
    },
  },
  {
    words: ['answer'],
    usage: 'tabmux answer ID --text TEXT [--profile NAME]',
    summary: "Answer an agent's question: TEXT becomes the result of its ask_human call",
    options: { text: { type: 'string' } },
    optionHelp: { text: { text: 'the answer the agent receives', value: 'TEXT' } },
    positionals: [1, 1],
    examples: ['tabmux answer req-0123abcd --text "Use the second address"', 'tabmux answer "$ID" --text yes --profile work'],
    run: async (context) => {
      const id = context.positionals[0] ?? '';
      const text = stringOption(context.values, 'text');
      if (text === undefined) {
        throw new TabmuxError('invalid_params', 'missing --text TEXT: the answer the agent receives');
      }
      const client = await tryConnect(context.paths, context.profile, 'tabmux-cli');
      if (!client) {
        throw new TabmuxError('request_gone', `request ${id} no longer waits: the daemon for profile ${context.profile} is not running`);
      }
      try {
        const result = await client.call('tabmux/requests.answer', { id, text, by: 'cli' });
        print(context, result, `answered ${result.answered}; session ${result.sessionId} has the answer`);
        return 0;
      } finally {
        client.close();
      }
    },
  },
  decideCommand(true),
  decideCommand(false),
];

/** `tabmux approve ID` and `tabmux deny ID [--reason TEXT]`: a person's decision on a call a confirm policy holds. */
function decideCommand(approve: boolean): Command {
  const word = approve ? 'approve' : 'deny';
  return {
    words: [word],
    usage: approve ? 'tabmux approve ID [--profile NAME]' : 'tabmux deny ID [--reason TEXT] [--profile NAME]',
    summary: approve ? 'Let a call a confirm policy holds run (its ID as tabmux requests lists it)' : 'Refuse a call a confirm policy holds; the agent gets the reason',
    ...(approve ? {} : { options: { reason: { type: 'string' } }, optionHelp: { reason: { text: 'why, told to the agent', value: 'TEXT' } } }),
    positionals: [1, 1],
    examples: approve ? ['tabmux approve req-0123abcd'] : ['tabmux deny req-0123abcd --reason "not this card"'],
    run: async (context) => {
      const id = context.positionals[0] ?? '';
      const reason = approve ? undefined : stringOption(context.values, 'reason');
      const client = await tryConnect(context.paths, context.profile, 'tabmux-cli');
      if (!client) {
        throw new TabmuxError('request_gone', `request ${id} no longer waits: the daemon for profile ${context.profile} is not running`);
      }
      try {
        const result = await client.call('tabmux/requests.decide', { id, approve, by: 'cli', ...(reason === undefined ? {} : { reason }) });
        print(context, result, approve ? `approved ${result.decided}; the call of session ${result.sessionId} runs now` : `denied ${result.decided}; session ${result.sessionId} is told${reason ? ` why` : ''}`);
        return 0;
      } finally {
        client.close();
      }
    },
  };
}
