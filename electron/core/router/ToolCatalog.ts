import type { ToolInfo } from '../../../shared/protocol.js';
import { ASK_HUMAN_TOOL } from './askHuman.js';

export type ToolKind = 'page' | 'new_page' | 'list_pages' | 'select_page' | 'close_page' | 'browser';

/** Upstream tools the router uses for itself and never shows agents. */
const HIDDEN = new Set(['get_tab_id']);

/** Browser-level tools that act on upstream's selected page: the router selects the session's page first. */
export const SELECTED_PAGE_TOOLS = new Set(['trigger_extension_action']);

const NOTES: Record<string, string> = {
  take_snapshot:
    'Element uids in the snapshot are session tokens (u:<session>:<epoch>:<uid>). Only tokens from your latest snapshot of your current page are accepted; after a "stale uid token" error call take_snapshot again.',
  list_pages:
    'Lists only the pages that belong to this session; the one marked [selected] is where page-scoped tools act. Set includeUnowned to also see tabs nobody owns (a human can attach one to you).',
  new_page: 'The new page belongs to this session only and becomes its current page. Opens in the background unless background is false.',
  select_page: 'Switches this session between its own pages. Pages of other sessions cannot be selected.',
  close_page: 'Closes one of this session\'s own pages.',
};

const SESSION_PREAMBLE = 'This session has its own private tab(s); other agents cannot see or touch them.';

export interface AgentToolOptions {
  /** Adds an optional `session_id` to every schema (session-argument mode). */
  sessionArg?: boolean;
}

/** What the router knows about upstream's tools: their kinds, and the schemas agents see. */
export class ToolCatalog {
  readonly #kinds = new Map<string, ToolKind>();
  readonly #upstream: ToolInfo[];
  /** The agents' tool list by session-argument mode, built on first request. */
  readonly #agentTools = new Map<boolean, ToolInfo[]>();

  constructor(upstreamTools: readonly ToolInfo[]) {
    this.#upstream = [...upstreamTools];
    for (const tool of upstreamTools) {
      this.#kinds.set(tool.name, kindOf(tool));
    }
  }

  kind(name: string): ToolKind | undefined {
    return HIDDEN.has(name) ? undefined : this.#kinds.get(name);
  }

  /** The names of the upstream tools agents see. */
  names(): string[] {
    return [...this.#kinds.keys()].filter((name) => !HIDDEN.has(name));
  }

  /** Whether upstream offers a tool, hidden ones included. */
  upstreamHas(name: string): boolean {
    return this.#kinds.has(name);
  }

  /** Upstream's schemas minus the routing `pageId`, with notes on the session model; optionally with `session_id`. */
  /**
   * The tools as agents see them. Built once per mode and kept: the list is the same for every agent and every
   * `tools/list`, so a new bridge's first request costs a lookup, not a rebuild of every schema.
   */
  agentTools(options: AgentToolOptions = {}): ToolInfo[] {
    const sessionArg = options.sessionArg === true;
    let tools = this.#agentTools.get(sessionArg);
    if (!tools) {
      tools = this.#buildAgentTools(options);
      this.#agentTools.set(sessionArg, tools);
    }
    return [...tools];
  }

  #buildAgentTools(options: AgentToolOptions): ToolInfo[] {
    const tools: ToolInfo[] = [];
    for (const tool of this.#upstream) {
      const kind = this.kind(tool.name);
      if (!kind) {
        continue;
      }
      const properties: Record<string, unknown> = { ...(tool.inputSchema.properties ?? {}) };
      let required = [...(tool.inputSchema.required ?? [])];
      if (kind === 'page') {
        delete properties['pageId'];
        required = required.filter((name) => name !== 'pageId');
      }
      if (kind === 'select_page' || kind === 'close_page') {
        properties['pageId'] = { type: 'number', description: 'The id of one of your own pages, as list_pages shows it.' };
      }
      if (kind === 'list_pages') {
        properties['includeUnowned'] = {
          type: 'boolean',
          description: "Also list tabs that no session owns, marked (unowned). In a browser tabmux did not launch (the user's own) those are the user's tabs, and none are listed.",
        };
      }
      if (options.sessionArg) {
        properties['session_id'] = SESSION_ID_ARG;
      }
      const note = NOTES[tool.name];
      const description = [tool.description ?? '', note ?? '', kind === 'page' ? '' : SESSION_PREAMBLE].filter(Boolean).join('\n\n');
      const inputSchema: ToolInfo['inputSchema'] = { ...tool.inputSchema, type: 'object', properties };
      if (required.length > 0) {
        inputSchema.required = required;
      } else {
        delete inputSchema.required;
      }
      tools.push({ name: tool.name, description, inputSchema, annotations: tool.annotations });
    }
    tools.push(withSessionArg(ASK_HUMAN_TOOL, options));
    if (options.sessionArg) {
      tools.push({
        name: 'close_session',
        description: 'Ends a session: closes the tabs it opened and forgets its uid tokens. Pass the session_id to end.',
        inputSchema: { type: 'object', properties: { session_id: { type: 'string', description: 'The session to end.' } }, required: ['session_id'] },
        annotations: { readOnlyHint: false },
      });
    }
    return tools;
  }
}

const SESSION_ID_ARG = {
  type: 'string',
  description: 'Your session id. Pick one (any string) and pass it on every call; a new id starts a new session with its own tab.',
};

/** A tool of tabmux's own, with `session_id` in session-argument mode. */
function withSessionArg(tool: ToolInfo, options: AgentToolOptions): ToolInfo {
  if (!options.sessionArg) {
    return tool;
  }
  return { ...tool, inputSchema: { ...tool.inputSchema, properties: { ...tool.inputSchema.properties, session_id: SESSION_ID_ARG } } };
}

function kindOf(tool: ToolInfo): ToolKind {
  switch (tool.name) {
    case 'new_page':
    case 'list_pages':
    case 'select_page':
    case 'close_page':
      return tool.name;
    default:
      return tool.inputSchema.properties && 'pageId' in tool.inputSchema.properties ? 'page' : 'browser';
  }
}
