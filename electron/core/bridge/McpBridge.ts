import { TabmuxError } from '../../../shared/errors.js';
import type { DaemonStatus } from '../../../shared/model.js';
import type { JsonRpcId } from '../../../shared/jsonrpc.js';
import type { ToolInfo, ToolResult } from '../../../shared/protocol.js';
import type { Logger } from '../platform/Logger.js';
import { asToolResult } from '../../../shared/toolResult.js';
import { HELLO_TIMEOUT_MS, type DaemonClient } from '../transport/DaemonClient.js';
import { AgentSessions, cancellable } from './AgentSessions.js';
import { BoundSessionSlot } from './BoundSessionSlot.js';
import { CallResend, toolNameOf } from './CallResend.js';
import { DaemonAnswers, stoppedAnswering } from '../transport/DaemonAnswers.js';
import { DaemonLink } from './DaemonLink.js';
import { RelayedResult } from './RelayedResult.js';
import type { CallOptions, ToolBridge, ToolLane } from './ToolBridge.js';
import { withDeadline } from '../../../shared/withDeadline.js';

export interface BridgeOptions {
  profile: string;
  /** Connects to the profile's daemon, starting it when none runs. */
  connect: () => Promise<DaemonClient>;
  /** Use this existing session instead of creating one (--session). */
  session?: string | undefined;
  /** Label for the session the bridge creates (--label); default: the MCP client's name. */
  label?: string | undefined;
  /** Session-argument mode (--session-arg): route each call by its `session_id` argument. */
  sessionArg?: boolean | undefined;
  logger: Logger;
  /**
   * The tools as agents see them without a daemon (upstream's catalogue through tabmux's rewriting), for a profile
   * whose daemon or browser cannot start: the client still gets its tools, and each call then says what is wrong.
   */
  catalogue?: ((sessionArg: boolean) => Promise<ToolInfo[]>) | undefined;
  /** Receives MCP notifications from the daemon (progress, logging, list changes) for the client. */
  onNotification?: (method: string, params: unknown) => void;
}

export type { CallOptions } from './ToolBridge.js';

/** How long a leaving bridge waits for its sessions to close before it goes anyway. */
const CLOSE_DEADLINE_MS = 5_000;

/**
 * What `tabmux mcp serve` does between its MCP client and the profile daemon, without the stdio and SDK parts:
 * one daemon connection, the session bound on it, and in session-argument mode the agent sessions routed by
 * `session_id`. Every failure becomes a tool error the agent can read and act on; only an unknown tool is a
 * protocol error, as it is upstream.
 */
export class McpBridge implements ToolBridge {
  readonly #options: BridgeOptions;
  readonly #link: DaemonLink;
  readonly #bound: BoundSessionSlot;
  readonly #agents: AgentSessions;
  readonly #answers: DaemonAnswers;
  #clientName: string | undefined;
  #closing: Promise<void> | undefined;
  /** The catalogue's list, once read (it starts an upstream process of its own). */
  #catalogueTools: Promise<ToolInfo[]> | undefined;
  /** Tools upstream marks read-only (`annotations.readOnlyHint`): one cut off by a lost connection is run again. */
  readonly #readOnly = new Set<string>();
  /** Whether #readOnly was filled from a tool list (a client need not ask for one before calling). */
  #toolsKnown = false;
  readonly #resend: CallResend;

  constructor(options: BridgeOptions) {
    this.#options = options;
    const { onNotification } = options;
    this.#link = new DaemonLink(
      async () => {
        try {
          return await options.connect();
        } catch (error) {
          const failure = TabmuxError.from(error);
          throw new TabmuxError(failure.code, `could not reach or start the tabmux daemon for profile ${options.profile}: ${failure.message}`, { cause: error });
        }
      },
      options.logger,
      (client) => {
        if (onNotification) {
          client.onNotification(onNotification);
        }
        // The connection gave up on a daemon that stopped answering: the calls on the lane wait on the same daemon.
        // Only the lane bound over this connection: a call made since may already be on a lane of the next one.
        const generation = this.#link.generation;
        client.onClose(() => {
          if (client.abandonedWith) {
            this.#bound.abandon(client.abandonedWith, generation);
          }
        });
      },
    );
    this.#bound = new BoundSessionSlot({
      link: this.#link,
      profile: options.profile,
      fixedSession: options.session,
      label: () => options.label ?? this.#clientName ?? 'mcp-client',
      logger: options.logger,
    });
    this.#agents = new AgentSessions(options.profile, options.logger);
    this.#resend = new CallResend({
      link: this.#link,
      logger: options.logger,
      session: () => (options.sessionArg ? undefined : this.#bound.session),
      readOnly: async (name) => {
        if (!this.#toolsKnown) {
          await this.listTools();
        }
        return this.#readOnly.has(name);
      },
    });
    // The lane's calls are the client's own lines, so the daemon is asked on the bridge's other connection.
    this.#answers = new DaemonAnswers({
      ask: () => this.#link.current?.request('ping'),
      onUnanswered: () => this.#giveUpOnDaemon(),
      answerWithinMs: HELLO_TIMEOUT_MS,
    });
  }

  /**
   * The daemon stopped answering while calls waited on it (its process stopped or stuck): each of them is told so, and
   * both connections are dropped, so the next call connects anew (and says so, if the daemon still does not answer).
   */
  #giveUpOnDaemon(): void {
    const client = this.#link.current;
    const { profile } = this.#options;
    const error = stoppedAnswering(profile, client?.hello.pid);
    this.#options.logger.warn(error.message);
    this.#bound.abandon(error);
    client?.abandon(error);
  }

  /** The MCP client's name from `initialize`, used as the session label unless --label was given. */
  setClientName(name: string | undefined): void {
    this.#clientName = name;
  }

  /** Starts connecting (and the daemon, with its Chrome) while the client is still initializing. */
  warmUp(): void {
    this.#link.client().catch((error: unknown) => this.#options.logger.warn(TabmuxError.from(error).message));
  }

  /** The client finished `initialize`: make its session now, so it shows up (labelled) before the first call. */
  start(): void {
    if (this.#options.sessionArg) {
      return;
    }
    this.#bound.ensure().catch((error: unknown) => this.#options.logger.warn(`could not set up the session: ${TabmuxError.from(error).message}`));
  }

  async listTools(): Promise<ToolInfo[]> {
    const sessionArg = this.#options.sessionArg === true;
    let tools: ToolInfo[];
    try {
      tools = await this.#daemonTools(sessionArg);
    } catch (error) {
      const { catalogue } = this.#options;
      if (catalogue === undefined) {
        throw error;
      }
      // The tool list does not need the browser: a client that cannot list tools shows the server as broken, with no
      // hint why, while a call answers with what is wrong and how to fix it.
      this.#options.logger.warn(`answering tools/list from the tool catalogue: ${TabmuxError.from(error).message}`);
      this.#catalogueTools ??= catalogue(sessionArg).catch((failure: unknown) => {
        this.#catalogueTools = undefined;
        throw failure;
      });
      return this.#catalogueTools;
    }
    for (const tool of tools) {
      if (tool.annotations?.['readOnlyHint'] === true) {
        this.#readOnly.add(tool.name);
      }
    }
    this.#toolsKnown = true;
    return tools;
  }

  async #daemonTools(sessionArg: boolean): Promise<ToolInfo[]> {
    try {
      return await (await this.#link.client()).listTools(sessionArg);
    } catch (error) {
      // The connection may have died just now (a daemon restart); one fresh attempt starts the daemon again.
      if (error instanceof TabmuxError && (error.code === 'daemon_not_running' || error.code === 'not_delivered')) {
        return (await this.#link.client()).listTools(sessionArg);
      }
      throw error;
    }
  }

  /** The daemon's status, connecting (and starting the daemon) when there is no connection. */
  async status(): Promise<DaemonStatus> {
    return (await this.#link.client()).call('tabmux/status');
  }

  /**
   * Runs one tool call. One that did not run (no daemon got it, a restart kept it back) or a read-only one cut off by
   * a lost daemon connection runs once more, on the daemon that comes back (see CallResend). Any other call cut off so
   * says it may or may not have run.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult | RelayedResult> {
    const back = this.#answers.begin();
    try {
      return await this.#callTool(name, args, options);
    } finally {
      back();
    }
  }

  async #callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolResult | RelayedResult> {
    try {
      return await this.#callOnce(name, args, options);
    } catch (error) {
      if (!(await this.#resend.decide(name, error, () => options.signal?.aborted === true))) {
        return this.#failure(error);
      }
      try {
        return await this.#callOnce(name, args, options);
      } catch (again) {
        return this.#failure(again);
      }
    }
  }

  async #callOnce(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolResult | RelayedResult> {
    // Serving several profiles, MultiBridge takes the argument off before the call gets here.
    if (Object.hasOwn(args, 'browser')) {
      throw new TabmuxError(
        'invalid_params',
        `this server serves one browser (profile ${this.#options.profile}), so tools take no browser argument; call ${name} again without it`,
      );
    }
    if (!this.#options.sessionArg) {
      return await this.#callBound(name, args, options);
    }
    const { session_id: agentId, ...rest } = args;
    if (agentId !== undefined && typeof agentId !== 'string') {
      throw new TabmuxError('invalid_params', 'session_id must be a string; pick one and pass it on every call');
    }
    if (name === 'close_session') {
      if (agentId === undefined || agentId === '') {
        throw new TabmuxError('invalid_params', 'close_session needs the session_id of the session to end');
      }
      const client = await this.#link.client();
      return await this.#agents.close(client, this.#link.generation, agentId);
    }
    if (agentId === undefined || agentId === '') {
      return await this.#callBound(name, rest, options);
    }
    const client = await this.#link.client();
    return await this.#agents.call({ client, generation: this.#link.generation, agentId, name, args: rest, signal: options.signal });
  }

  /** Closes the sessions this bridge created (and so the tabs they opened), then the daemon connection. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    await withDeadline(Promise.all([this.#bound.settled(), this.#agents.settled()]), CLOSE_DEADLINE_MS, undefined);
    const client = this.#link.current;
    if (client) {
      const generation = this.#link.generation;
      const sessions = [this.#bound.createdIn(generation), ...this.#agents.liveIn(generation)].filter((id) => id !== undefined);
      const closing = sessions.map((session) =>
        client.closeSession(session).then(
          () => this.#options.logger.info(`session ${session} closed`),
          (error: unknown) => this.#options.logger.warn(`closing session ${session} failed: ${TabmuxError.from(error).message}`),
        ),
      );
      await withDeadline(Promise.all(closing), CLOSE_DEADLINE_MS, undefined);
    }
    this.#answers.dispose();
    this.#bound.close();
    this.#link.close();
  }

  /**
   * The lane for the client's plain tool calls, when the bridge's session is bound and settled: each call then goes
   * to the daemon as the client wrote it. Calls the bridge must look at (session-argument mode, a session being made
   * or replaced, a note to add) take `callTool`.
   */
  lane(): ToolLane | undefined {
    const lane = this.#options.sessionArg ? undefined : this.#bound.lane(this.#link.generation);
    if (lane === undefined) {
      return undefined;
    }
    const cancelled = new Set<JsonRpcId>();
    return {
      // A browser argument is refused by callTool, with the reason.
      call: (id, line, args, done) => {
        if (Object.hasOwn(args, 'browser')) {
          return false;
        }
        const back = this.#answers.begin();
        const taken = lane.call(id, line, (reply) => {
          back();
          const name = Buffer.isBuffer(reply) ? undefined : toolNameOf(line);
          if (name === undefined) {
            done(Buffer.isBuffer(reply) ? reply : this.#failureOrProtocolError(reply));
            return;
          }
          void this.#resend.decide(name, reply, () => cancelled.has(id)).then(async (again) => {
            if (!again) {
              done(this.#failureOrProtocolError(reply));
              return;
            }
            const result = await this.#callOnce(name, args, {}).catch((error: unknown) => this.#failureOrProtocolError(error));
            done(result instanceof RelayedResult ? asToolResult(JSON.parse(result.json.toString('utf8'))) : result);
          });
        });
        if (!taken) {
          back();
        }
        return taken;
      },
      cancel: (id) => {
        cancelled.add(id);
        lane.cancel(id);
      },
    };
  }

  async #callBound(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolResult | RelayedResult> {
    const { client, session, note } = await this.#bound.ensure();
    // The lane holds the binding; a call made here names its session instead.
    const params = { session, name, arguments: args };
    if (note === undefined) {
      return new RelayedResult(await cancellable(client, options.signal, () => client.relay('tabmux/call', params)));
    }
    const result = asToolResult(await cancellable(client, options.signal, () => client.request('tabmux/call', params)));
    return { ...result, content: [{ type: 'text', text: note }, ...result.content] };
  }

  #failure(error: unknown): ToolResult {
    const failure = this.#failureOrProtocolError(error);
    if (failure instanceof TabmuxError) {
      throw failure;
    }
    return failure;
  }

  /** What the agent gets for a failed call: a tool error it can read, or for an unknown tool a protocol error, as upstream does. */
  #failureOrProtocolError(error: unknown): ToolResult | TabmuxError {
    const failure = TabmuxError.from(error);
    if (failure.code === 'unknown_tool') {
      return failure;
    }
    const text =
      failure.code === 'daemon_not_running'
        ? `Error: the connection to the tabmux daemon for profile ${this.#options.profile} closed while this call was under way (the daemon restarted or was stopped), so the call may or may not have run. ` +
          'tabmux reconnects on its own with your next call, to the same session and tabs when they were kept (its result says so if they were not). Check the page with a new snapshot before calling again; uid tokens from before are stale.'
        : `Error: ${failure.message}`;
    return { content: [{ type: 'text', text }], isError: true, _meta: { 'tabmux/error': failure.code } };
  }
}
