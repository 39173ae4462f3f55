import { isRecord } from '../../shared/isRecord.js';
import type { DaemonClient } from '../core/transport/DaemonClient.js';
import { tryConnect } from '../core/lifecycle/daemonProcess.js';
import type { CommandContext } from './Command.js';

/** How long a call runs before the command first looks whether it waits for a person. */
const FIRST_LOOK_MS = 1_000;
const LOOK_EVERY_MS = 2_000;

interface Waiting {
  id: string;
  kind: string;
  tool: string;
  url: string | null;
  question: string;
}

/** The session's requests in a `tabmux/requests.list` answer; anything it cannot read is no request. */
function waitingOf(result: unknown, session: string): Waiting[] {
  const requests = isRecord(result) && Array.isArray(result['requests']) ? (result['requests'] as unknown[]) : [];
  return requests.flatMap((request) => {
    if (!isRecord(request) || request['sessionId'] !== session || typeof request['id'] !== 'string') {
      return [];
    }
    const text = (key: string): string => (typeof request[key] === 'string' ? request[key] : '');
    return [{ id: request['id'], kind: text('kind'), tool: text('tool'), url: typeof request['url'] === 'string' ? request['url'] : null, question: text('question') }];
  });
}

/** What the person running the command can do about it, in one line. */
export function waitingHint(session: string, waiting: Waiting): string {
  if (waiting.kind === 'confirm') {
    const where = waiting.url === null ? '' : ` on ${waiting.url}`;
    return `session ${session}'s ${waiting.tool}${where} waits for a person's yes: tabmux approve ${waiting.id}, or tabmux deny ${waiting.id} --reason TEXT (the dashboard shows it too)`;
  }
  return `session ${session} waits for a person's answer to: ${waiting.question} (tabmux answer ${waiting.id} --text TEXT, or the dashboard)`;
}

/**
 * Runs `call` and, while it has not settled, says on stderr (once per request) when it waits for a person: a call a
 * confirm policy holds, or the agent's own ask_human. Such a call can wait for minutes with no output, and whoever
 * runs the command should know why and what answers it. The look goes over a connection of its own, so the call's
 * connection carries nothing else, and ends with the call; a look that fails only means no hint.
 */
export async function tellWhenItWaits<T>(context: CommandContext, session: string, call: Promise<T>): Promise<T> {
  let done = false;
  let side: DaemonClient | undefined;
  const told = new Set<string>();
  const look = async (): Promise<void> => {
    try {
      if (side === undefined) {
        const connected = await tryConnect(context.paths, context.profile, 'tabmux-cli', { looksOnly: true });
        if (done) {
          connected?.close();
          return;
        }
        side = connected;
      }
      if (side === undefined) {
        return;
      }
      const result = await side.request('tabmux/requests.list', {});
      for (const waiting of waitingOf(result, session)) {
        if (!done && !told.has(waiting.id)) {
          told.add(waiting.id);
          context.stderr(waitingHint(session, waiting));
        }
      }
    } catch {
      // Only a hint: the call itself says what became of it.
    }
    if (!done) {
      timer = setTimeout(() => void look(), LOOK_EVERY_MS);
    }
  };
  let timer: NodeJS.Timeout | undefined = setTimeout(() => void look(), FIRST_LOOK_MS);
  try {
    return await call;
  } finally {
    done = true;
    clearTimeout(timer);
    side?.close();
  }
}
