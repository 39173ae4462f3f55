import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import type { JsonRpcId, JsonRpcRequest } from '../../../shared/jsonrpc.js';
import type { BrowserInfo, DaemonLifetime, DaemonStatus, TabPicture } from '../../../shared/model.js';
import {
  controlMethods,
  EVENT_METHOD,
  isControlMethod,
  MAX_SESSION_ID,
  MAX_TOOL_NAME,
  PROTOCOL_VERSION,
  type ControlMethod,
  type ControlParams,
  type ControlResults,
  type ToolResult,
} from '../../../shared/protocol.js';
import type { ActivityQueryResult } from '../../../shared/activity.js';
import type { ActivityFilter } from '../activity/readActivityLog.js';
import type { Logger } from '../platform/Logger.js';
import { makePolicyRule, type PolicyRule } from '../../../shared/policy.js';
import { randomBytes } from 'node:crypto';
import type { TabPictures } from '../pictures/TabPictures.js';
import type { Router } from '../router/Router.js';
import type { Peer, PeerHandle, PeerService } from '../transport/PeerService.js';

export interface ControlServiceDeps {
  router: Router;
  profile: string;
  version: string;
  status: () => DaemonStatus;
  /** `keepBrowser`: leave Chrome, the sessions and their tabs to the next daemon (`daemon restart`). */
  stop: (options: { keepBrowser: boolean }) => void;
  logger: Logger;
  /** The profile's activity log. */
  queryLog: (filter: ActivityFilter) => Promise<ActivityQueryResult>;
  /** A picture of the activity log, base64 JPEG, or null. */
  logPicture: (name: string) => Promise<string | null>;
  /** Brings the browser up now (an external one connects); rejects with what to do when it cannot. */
  connectBrowser: () => Promise<BrowserInfo>;
  /** Reads the dashboards' records in the runtime dir again and keeps the browser's tabs away from their ports. */
  refreshDashboards: () => Promise<number[]>;
  /** Live pictures of the profile's tabs, and takeover input into them. */
  pictures: TabPictures;
  /**
   * What a reply waits for before it leaves: the sessions' changes on file (the session journal), so that what a
   * client was told (a session created, a tab opened) survives a daemon killed right after. Undefined: nothing to wait for.
   */
  settled?: () => Promise<void> | undefined;
  /** `daemon start` on a running daemon: one started on demand stays until it is stopped from now on. */
  keep: () => DaemonLifetime;
  /** Reads the profile's policy rules from its config again and applies them; returns what applies now. */
  reloadPolicies?: () => Promise<PolicyRule[]>;
  /** Changes the profile's policy rules in its config and applies them; returns what applies now. */
  editPolicies?: (change: (rules: readonly PolicyRule[]) => PolicyRule[]) => Promise<PolicyRule[]>;
  /**
   * Told how many clients use the daemon whenever that changes (a daemon started on demand exits idle): every
   * connection from its hello, except one whose hello says it only looks (status, lists, the log) and a watcher's
   * (one that subscribed to events: the tray, a dashboard, `log --follow`). Those show a daemon; they do not keep it,
   * or a tray that is always connected, or a script that polls the status, would keep every daemon an agent started.
   */
  clientsChanged?: (count: number) => void;
  /**
   * Told how many connections have not said their hello yet whenever that changes: they may be a client about to use
   * the daemon, so an idle daemon waits for them to say, but they do not start its idle clock again.
   */
  openingChanged?: (count: number) => void;
}

interface PeerState {
  hello: boolean;
  bound: string | null;
  unsubscribe: (() => void) | undefined;
  /** JSON-RPC request id -> queued call id, for notifications/cancelled. */
  calls: Map<JsonRpcId, number>;
  /**
   * Whether the connection counts as using the daemon: from its hello, unless that says it only looks, until it
   * subscribes to events or goes (see `clientsChanged`).
   */
  uses: boolean;
}

type Handlers = { [M in ControlMethod]: (params: ControlParams<M>, peer: Peer, state: PeerState, requestId: JsonRpcId | undefined) => Promise<ControlResults[M]> | ControlResults[M] };

/**
 * The one dispatcher behind every transport: `tabmux/*` control methods, and MCP for a connection bound to a
 * session. The transport's `RpcServerConnection` reads the messages and writes the replies.
 */
export class ControlService implements PeerService {
  readonly #handlers: Handlers;
  #clients = 0;
  #opening = 0;

  constructor(private readonly deps: ControlServiceDeps) {
    this.#handlers = this.#createHandlers();
  }

  open(peer: Peer): PeerHandle {
    const state: PeerState = { hello: false, bound: null, unsubscribe: undefined, calls: new Map(), uses: false };
    this.#opening += 1;
    this.deps.openingChanged?.(this.#opening);
    return {
      dispatch: (request) => this.#dispatch(peer, state, request),
      close: () => this.#onClose(peer, state),
    };
  }

  async #dispatch(peer: Peer, state: PeerState, request: JsonRpcRequest): Promise<unknown> {
    try {
      return await this.#dispatchRequest(peer, state, request);
    } finally {
      const settling = this.deps.settled?.();
      if (settling !== undefined) {
        await settling;
      }
    }
  }

  async #dispatchRequest(peer: Peer, state: PeerState, request: JsonRpcRequest): Promise<unknown> {
    const { method, params } = request;
    if (method === 'tabmux/hello') {
      return this.#dispatchControl(method, params, peer, state, request.id);
    }
    if (!state.hello) {
      throw new TabmuxError('hello_required', `send tabmux/hello with protocolVersion ${PROTOCOL_VERSION} before ${method}`);
    }
    if (isControlMethod(method)) {
      return this.#dispatchControl(method, params, peer, state, request.id);
    }
    return this.#dispatchMcp(method, params, request.id, peer, state);
  }

  #dispatchControl(method: ControlMethod, params: unknown, peer: Peer, state: PeerState, requestId?: JsonRpcId): Promise<unknown> {
    // Every agent call through `tabmux mcp serve` is a tabmux/call: well-formed ones are taken as they are (the schema
    // would copy their arguments key by key), anything else goes to the schema for its error.
    const call = method === 'tabmux/call' ? wellFormedCall(params) : undefined;
    const parsed = call ? { success: true as const, data: call } : controlMethods[method].params().safeParse(params ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      return Promise.reject(new TabmuxError('invalid_params', `invalid params for ${method}: ${where}${issue?.message ?? 'malformed'}`));
    }
    const handler = this.#handlers[method] as (params: unknown, peer: Peer, state: PeerState, requestId: JsonRpcId | undefined) => unknown;
    return Promise.resolve(handler(parsed.data, peer, state, requestId));
  }

  async #dispatchMcp(method: string, params: unknown, id: JsonRpcId | undefined, peer: Peer, state: PeerState): Promise<unknown> {
    const { router } = this.deps;
    switch (method) {
      case 'initialize':
        return {
          protocolVersion: isRecord(params) && typeof params['protocolVersion'] === 'string' ? params['protocolVersion'] : '2025-06-18',
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'tabmux', version: this.deps.version },
          instructions: 'Each session works in its own browser tab(s) of a shared Chrome profile. Element uids are session tokens; take a fresh snapshot after a stale-token error.',
        };
      case 'notifications/initialized':
        return undefined;
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: router.agentTools() };
      case 'notifications/cancelled': {
        const requestId = isRecord(params) ? params['requestId'] : undefined;
        const callId = typeof requestId === 'string' || typeof requestId === 'number' ? state.calls.get(requestId) : undefined;
        if (callId !== undefined) {
          router.cancel(callId);
        }
        return undefined;
      }
      case 'tools/call': {
        if (state.bound === null) {
          throw new TabmuxError('not_bound', 'bind a session first: send tabmux/session.bind, or use tabmux/call with a session');
        }
        if (!isRecord(params) || typeof params['name'] !== 'string') {
          throw new TabmuxError('invalid_params', 'tools/call needs params.name (a tool name) and optional params.arguments (an object)');
        }
        const args = params['arguments'] ?? {};
        if (!isRecord(args)) {
          throw new TabmuxError('invalid_params', 'tools/call params.arguments must be an object');
        }
        return this.#callTool(state.bound, params['name'], args, peer, state, id);
      }
      default:
        throw new TabmuxError('unknown_method', `unknown method ${method}; see the tabmux/* control methods or MCP initialize, tools/list, tools/call`);
    }
  }

  /** A tool call: router refusals and timeouts become tool errors the agent can read, like upstream's own. */
  async #callTool(session: string, name: string, args: Record<string, unknown>, peer: Peer, state: PeerState, requestId?: JsonRpcId): Promise<ToolResult> {
    try {
      if (nestingExceeds(args, MAX_ARGUMENT_DEPTH)) {
        throw new TabmuxError('invalid_params', `${name} arguments are nested deeper than ${MAX_ARGUMENT_DEPTH} levels; no browser tool takes that`);
      }
      return await this.deps.router.callTool(session, name, args, {
        owner: peer.id,
        onQueued: (callId) => {
          if (requestId !== undefined) {
            state.calls.set(requestId, callId);
          }
        },
      });
    } catch (error) {
      const failure = TabmuxError.from(error);
      // An unknown tool is a protocol error, as upstream has it; a call a restart kept from running is one the client
      // may send again to the next daemon (the MCP bridge does), so it gets the code it can tell that by.
      if (failure.code === 'unknown_tool' || failure.code === 'daemon_restarting') {
        throw failure;
      }
      return { content: [{ type: 'text', text: `Error: ${failure.message}` }], isError: true, _meta: { 'tabmux/error': failure.code } };
    } finally {
      if (requestId !== undefined) {
        state.calls.delete(requestId);
      }
    }
  }

  #onClose(peer: Peer, state: PeerState): void {
    state.unsubscribe?.();
    // A viewer that went away stops its screencasts.
    void this.deps.pictures.unwatch(peer.id);
    const dropped = this.deps.router.dropOwner(peer.id);
    if (state.bound !== null) {
      this.deps.router.unbind(state.bound, peer.id);
      this.deps.logger.info(`client ${peer.id} left session ${state.bound}${dropped ? `; dropped ${dropped} queued calls` : ''}`);
    }
    this.#stopsUsing(state);
    this.#saidHello(state);
  }

  /** A connection said its hello (or went without): it no longer counts as opening. */
  #saidHello(state: PeerState): void {
    if (!state.hello) {
      state.hello = true;
      this.#opening -= 1;
      this.deps.openingChanged?.(this.#opening);
    }
  }

  #stopsUsing(state: PeerState): void {
    if (state.uses) {
      state.uses = false;
      this.#clients -= 1;
      this.deps.clientsChanged?.(this.#clients);
    }
  }

  #editPolicies(change: (rules: readonly PolicyRule[]) => PolicyRule[]): Promise<PolicyRule[]> {
    const edit = this.deps.editPolicies;
    if (!edit) {
      return Promise.reject(new TabmuxError('invalid_request', 'this daemon cannot change its profile\'s policies; use tabmux policy add or remove'));
    }
    return edit(change);
  }

  #createHandlers(): Handlers {
    const { router } = this.deps;
    return {
      'tabmux/hello': (params, _peer, state) => {
        if (params.protocolVersion !== PROTOCOL_VERSION) {
          const side = params.protocolVersion > PROTOCOL_VERSION ? 'the daemon (tabmux daemon stop, then start it with the newer tabmux)' : 'this client (use the tabmux that started the daemon)';
          throw new TabmuxError('protocol_mismatch', `client speaks tabmux protocol ${params.protocolVersion}, daemon speaks ${PROTOCOL_VERSION}: upgrade ${side}`);
        }
        if (!state.hello && params.looksOnly !== true) {
          state.uses = true;
          this.#clients += 1;
          this.deps.clientsChanged?.(this.#clients);
        }
        this.#saidHello(state);
        return { protocolVersion: PROTOCOL_VERSION, version: this.deps.version, profile: this.deps.profile, pid: process.pid };
      },
      'tabmux/status': () => this.deps.status(),
      'tabmux/stop': (params) => {
        setImmediate(() => this.deps.stop({ keepBrowser: params?.keepBrowser === true }));
        return { stopping: true };
      },
      'tabmux/keep': () => ({ lifetime: this.deps.keep() }),
      'tabmux/subscribe': (_params, peer, state) => {
        state.unsubscribe ??= router.onEvent((event) => peer.notify(EVENT_METHOD, event));
        this.#stopsUsing(state);
        return this.deps.status();
      },
      'tabmux/tools.list': (params) => ({ tools: router.agentTools(params?.sessionArg === true ? { sessionArg: true } : {}) }),
      'tabmux/tabs.list': async () => ({ tabs: await router.tabs() }),
      'tabmux/tabs.open': async (params) => ({ tab: await router.openTab(params.url) }),
      'tabmux/session.create': (params) => router.createSession(params?.label ?? null),
      'tabmux/session.list': () => ({ sessions: router.listSessions() }),
      'tabmux/session.close': (params) => router.closeSession(params.session),
      'tabmux/session.bind': (params, peer, state) => {
        if (state.bound !== null && state.bound !== params.session) {
          throw new TabmuxError('already_bound', `this connection is bound to ${state.bound}; open another connection for ${params.session}`);
        }
        const info = router.bind(params.session, peer.id);
        state.bound = params.session;
        return info;
      },
      'tabmux/session.unbind': (_params, peer, state) => {
        const unbound = state.bound;
        if (unbound !== null) {
          router.unbind(unbound, peer.id);
          state.bound = null;
        }
        return { unbound };
      },
      'tabmux/session.page': (params) => router.sessionPage(params.session),
      'tabmux/session.attach': (params) => router.attach(params.session, params.pageId, params.worker),
      'tabmux/session.newPage': (params) => router.newPage(params.session, params.url, params.background),
      'tabmux/session.release': (params) => router.release(params.session, params.pageId),
      'tabmux/session.select': (params) => router.select(params.session, params.pageId, params.bringToFront),
      'tabmux/session.pause': (params) => router.setPaused(params.session, true),
      'tabmux/session.resume': (params) => router.setPaused(params.session, false),
      // The request id lets notifications/cancelled reach the queued call, as for tools/call.
      'tabmux/call': (params, peer, state, requestId) => this.#callTool(params.session, params.name, params.arguments, peer, state, requestId),
      'tabmux/queue.cancel': (params) => ({ cancelled: router.cancel(params.callId) }),
      'tabmux/log.query': (params) =>
        this.deps.queryLog({ session: params?.session, since: params?.since, tools: params?.tools, outcomes: params?.outcomes, limit: params?.limit ?? DEFAULT_LOG_LIMIT }),
      'tabmux/log.picture': async (params) => ({ data: await this.deps.logPicture(params.name) }),
      'tabmux/browser.connect': async () => ({ browser: await this.deps.connectBrowser() }),
      'tabmux/dashboards.refresh': async () => ({ ports: await this.deps.refreshDashboards() }),
      'tabmux/policies.list': () => ({ policies: router.policies() }),
      'tabmux/policies.add': async (params) => {
        const known = new Set(router.agentTools().map((tool) => tool.name));
        const policy = makePolicyRule(params, known, `pol-${randomBytes(3).toString('hex')}`, Date.now());
        return { policy, policies: await this.#editPolicies((rules) => [...rules, policy]) };
      },
      'tabmux/policies.remove': async (params) => ({
        removed: params.id,
        policies: await this.#editPolicies((rules) => {
          if (!rules.some((rule) => rule.id === params.id)) {
            throw new TabmuxError('invalid_params', `profile ${this.deps.profile} has no policy ${params.id}; tabmux policy list shows its rules`);
          }
          return rules.filter((rule) => rule.id !== params.id);
        }),
      }),
      'tabmux/policies.reload': async () => ({ policies: (await this.deps.reloadPolicies?.()) ?? router.policies() }),
      'tabmux/requests.list': () => ({ requests: router.requests() }),
      'tabmux/requests.answer': (params) => router.answer(params.id, params.text, params.by),
      'tabmux/requests.decide': (params) => router.decide(params.id, params.approve, params.reason, params.by),
      'tabmux/pictures.watch': async (params, peer) => {
        const deliver = (picture: TabPicture): void => peer.notify(EVENT_METHOD, { type: 'picture', profile: this.deps.profile, picture });
        return { watching: await this.deps.pictures.watch(peer.id, deliver, params.tabs) };
      },
      'tabmux/pictures.unwatch': async (_params, peer) => {
        await this.deps.pictures.unwatch(peer.id);
        return { watching: [] };
      },
      'tabmux/pictures.input': async (params, peer, state) => {
        if (state.bound !== null) {
          // An agent's connection drives its session through tools; a person's hands come from the dashboard or tray.
          throw new TabmuxError('invalid_request', `this connection is bound to session ${state.bound}; takeover input comes only from the tabmux dashboard or tray window`);
        }
        const sent = router.takeoverInput(params.tabId);
        await this.deps.pictures.input(peer.id, params.tabId, params.input);
        sent();
        return { sent: true };
      },
    };
  }
}

/** What the tabmux/call schema accepts, checked without copying: the session id, a tool name, an arguments object. */
function wellFormedCall(params: unknown): ControlParams<'tabmux/call'> | undefined {
  if (!isRecord(params)) {
    return undefined;
  }
  const { session, name, arguments: args } = params;
  if (typeof session !== 'string' || session.length > MAX_SESSION_ID || typeof name !== 'string' || name.length > MAX_TOOL_NAME || (args !== undefined && !isRecord(args))) {
    return undefined;
  }
  return { session, name, arguments: args ?? {} };
}

const MAX_ARGUMENT_DEPTH = 32;
const DEFAULT_LOG_LIMIT = 1000;

/** Iterative, so a hostile structure cannot overflow the stack while being checked. */
function nestingExceeds(value: unknown, max: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop();
    if (!item || typeof item.value !== 'object' || item.value === null) {
      continue;
    }
    if (item.depth >= max) {
      return true;
    }
    for (const child of Object.values(item.value)) {
      stack.push({ value: child, depth: item.depth + 1 });
    }
  }
  return false;
}
