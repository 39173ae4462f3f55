import { TabmuxError } from '../../../shared/errors.js';
import type { ToolInfo, ToolResult } from '../../../shared/protocol.js';
import type { HumanRequests } from './HumanRequests.js';
import type { Session } from './Session.js';

/** The tool tabmux answers itself, never upstream: an agent's question to its person. */
export const ASK_HUMAN = 'ask_human';

const MAX_QUESTION = 4000;
const MAX_CHOICES = 20;
const MAX_CHOICE = 200;

export const ASK_HUMAN_TOOL: ToolInfo = {
  name: ASK_HUMAN,
  description:
    'Asks the person who runs this browser a question and waits for the answer, which is the result. Use it when you meet something you should not decide or cannot do alone: a login, a CAPTCHA, a payment or other irreversible step, an ambiguous choice. ' +
    'While you wait, the person may take over your tab (sign in, solve the CAPTCHA); take a new snapshot after the answer. Fails with an error if nobody answers within the profile\'s question timeout.',
  inputSchema: {
    type: 'object',
    properties: {
      question: { type: 'string', description: 'What you need from the person, in one or two plain sentences; say what you will do with the answer.' },
      choices: { type: 'array', items: { type: 'string' }, description: 'Answers to offer, when the choice is among a few; the person may still write another.' },
    },
    required: ['question'],
  },
  annotations: { readOnlyHint: true },
};

/**
 * Runs `ask_human` for a session: the request waits in `humans` (no worker, no queue slot) until a person answers or
 * `timeoutMs` passes. The answer's text is the result; who answered and when travel in `_meta` for the activity log.
 */
export async function askHuman(
  session: Session,
  args: Record<string, unknown>,
  humans: HumanRequests,
  timeoutMs: number,
  owner: string | undefined,
  onQueued?: (callId: number) => void,
): Promise<ToolResult> {
  const { question, choices } = parseArgs(args);
  const answer = await humans.ask(
    { kind: 'question', sessionId: session.id, label: session.label, tool: ASK_HUMAN, url: session.currentPage?.url || null, question, choices },
    timeoutMs,
    owner,
    `nobody answered your question within ${Math.round(timeoutMs / 1000)} s (the profile's questionTimeoutMs); carry on without the answer, or ask again later`,
    onQueued,
  );
  session.lastUsedAt = Date.now();
  return { content: [{ type: 'text', text: answer.text }], _meta: { 'tabmux/answeredBy': answer.by, 'tabmux/answeredAt': answer.at } };
}

function parseArgs(args: Record<string, unknown>): { question: string; choices: string[] } {
  const question = args['question'];
  if (typeof question !== 'string' || question.trim() === '') {
    throw new TabmuxError('invalid_params', 'ask_human needs a question: a non-empty string saying what you need from the person');
  }
  if (question.length > MAX_QUESTION) {
    throw new TabmuxError('invalid_params', `ask_human's question is longer than ${MAX_QUESTION} characters; ask it shorter`);
  }
  const raw = args['choices'];
  if (raw === undefined) {
    return { question, choices: [] };
  }
  if (!Array.isArray(raw) || raw.length > MAX_CHOICES || !raw.every((choice): choice is string => typeof choice === 'string' && choice.length <= MAX_CHOICE)) {
    throw new TabmuxError('invalid_params', `ask_human's choices must be a list of at most ${MAX_CHOICES} strings of at most ${MAX_CHOICE} characters each`);
  }
  return { question, choices: raw };
}

/** The result as the activity log keeps it: the answer, with who gave it. */
export function answerForLog(result: ToolResult): ToolResult {
  const by = result._meta?.['tabmux/answeredBy'];
  if (typeof by !== 'string') {
    return result;
  }
  const text = result.content.find((item) => item.type === 'text')?.text ?? '';
  return { ...result, content: [{ type: 'text', text: `answered from the ${by}: ${text}` }] };
}
