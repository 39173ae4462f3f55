import { isSessionGone, TabmuxError } from '../../../shared/errors.js';
import type { ToolResult } from '../../../shared/protocol.js';
import type { Logger } from '../platform/Logger.js';
import { asToolResult, textResult } from '../../../shared/toolResult.js';
import type { DaemonClient } from '../transport/DaemonClient.js';
import type { CancelSignal } from './CancelSignal.js';

/** Longest agent session id accepted; it doubles as the tabmux session label, which is capped at 200 characters. */
const MAX_AGENT_ID_LENGTH = 200;

interface AgentEntry {
  session: string;
  /** The daemon connection generation the session was created in; an older one means the daemon restarted. */
  generation: number;
  ended: boolean;
}

export interface AgentCall {
  client: DaemonClient;
  generation: number;
  agentId: string;
  name: string;
  args: Record<string, unknown>;
  /** The MCP client's cancellation of this call: the daemon drops it from the queue. */
  signal?: CancelSignal | undefined;
}

/**
 * Session-argument mode: agent frameworks put their own `session_id` into every tool call, and several of their
 * sessions share one MCP connection. This maps each agent id to a tabmux session (created on first sight, labelled
 * with the agent id) and remembers ids whose session ended, so a late call gets "session not found" instead of
 * silently starting over in a blank tab.
 */
export class AgentSessions {
  readonly #entries = new Map<string, AgentEntry>();
  readonly #creating = new Map<string, Promise<AgentEntry>>();

  constructor(
    private readonly profile: string,
    private readonly logger: Logger,
  ) {}

  /** Runs one tool call in the agent id's session. Router refusals come back as tool errors, like upstream's own. */
  async call({ client, generation, agentId, name, args, signal }: AgentCall): Promise<ToolResult> {
    checkAgentId(agentId);
    if (this.#entries.get(agentId)?.ended) {
      return notFound(agentId);
    }
    const { entry, note } = await this.#resolve(client, generation, agentId);
    const result = asToolResult(await cancellable(client, signal, () => client.call('tabmux/call', { session: entry.session, name, arguments: args })));
    if (result.isError && isSessionGone(result._meta?.['tabmux/error'])) {
      entry.ended = true;
      return notFound(agentId);
    }
    return note === undefined ? result : { ...result, content: [{ type: 'text', text: note }, ...result.content] };
  }

  /** The close_session tool: ends the agent id's session and the tabs it opened. */
  async close(client: DaemonClient, generation: number, agentId: string): Promise<ToolResult> {
    checkAgentId(agentId);
    const entry = this.#entries.get(agentId);
    if (!entry || entry.ended || entry.generation !== generation) {
      // After a daemon restart the old session is already gone with its tabs; the id is done either way.
      if (entry) {
        entry.ended = true;
      }
      return notFound(agentId);
    }
    entry.ended = true;
    try {
      const { closedPages } = await client.closeSession(entry.session);
      this.logger.info(`agent session ${agentId} (${entry.session}) closed`);
      return textResult(`Session ${agentId} closed; ${closedPages.length} tab(s) it opened were closed. A new session_id starts a new session.`);
    } catch (error) {
      if (error instanceof TabmuxError && isSessionGone(error.code)) {
        return notFound(agentId);
      }
      entry.ended = false;
      throw error;
    }
  }

  /** Sessions made on this connection generation that are still open: the bridge closes them when it leaves. */
  liveIn(generation: number): string[] {
    return [...this.#entries.values()].filter((entry) => !entry.ended && entry.generation === generation).map((entry) => entry.session);
  }

  /** Resolves once every session being created has been, so a shutdown does not miss one. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.#creating.values());
  }

  async #resolve(client: DaemonClient, generation: number, agentId: string): Promise<{ entry: AgentEntry; note?: string }> {
    const entry = this.#entries.get(agentId);
    if (entry && entry.generation === generation) {
      return { entry };
    }
    if (entry && (await this.#stillThere(client, entry.session))) {
      // A new connection to a daemon that kept the session (the same daemon, or one that restored it after a restart).
      entry.generation = generation;
      return { entry };
    }
    const created = await this.#create(client, generation, agentId);
    if (!entry) {
      return { entry: created };
    }
    const note = `Note: the tabmux daemon for profile ${this.profile} restarted and its browser did not survive, so session ${agentId} continues in a new tab. Pages and uid tokens from before are gone: navigate again and take a new snapshot.`;
    return { entry: created, note };
  }

  async #stillThere(client: DaemonClient, session: string): Promise<boolean> {
    const { sessions } = await client.call('tabmux/session.list');
    return sessions.some((info) => info.id === session);
  }

  #create(client: DaemonClient, generation: number, agentId: string): Promise<AgentEntry> {
    // Two calls that first mention the same id at once must share one session, not race to make two.
    let pending = this.#creating.get(agentId);
    if (!pending) {
      pending = (async () => {
        const info = await client.createSession(agentId);
        const entry: AgentEntry = { session: info.id, generation, ended: false };
        this.#entries.set(agentId, entry);
        this.logger.info(`agent session ${agentId} -> ${info.id}`);
        return entry;
      })().finally(() => this.#creating.delete(agentId));
      this.#creating.set(agentId, pending);
    }
    return pending;
  }
}

function checkAgentId(agentId: string): void {
  if (agentId.length === 0 || agentId.length > MAX_AGENT_ID_LENGTH) {
    throw new TabmuxError('invalid_params', `session_id must be 1 to ${MAX_AGENT_ID_LENGTH} characters; pick a short id and pass it on every call`);
  }
}

function notFound(agentId: string): ToolResult {
  const text = `Session not found: ${agentId} (closed or expired); use a new session_id`;
  return { content: [{ type: 'text', text }], isError: true, _meta: { 'tabmux/error': 'session_closed' } };
}

/**
 * Runs one daemon request that the MCP client may cancel: the daemon numbers requests per connection, so the id of
 * the next one is what notifications/cancelled names.
 */
export async function cancellable<T>(client: DaemonClient, signal: CancelSignal | undefined, request: () => Promise<T>): Promise<T> {
  const requestId = client.nextRequestId;
  const cancel = (): void => client.notify('notifications/cancelled', { requestId, reason: 'the MCP client cancelled the call' });
  const forget = signal?.onCancel(cancel);
  try {
    return await request();
  } finally {
    forget?.();
  }
}
