import { TabmuxError } from '../../../shared/errors.js';
import type { DaemonStatus } from '../../../shared/model.js';
import type { ToolInfo, ToolResult } from '../../../shared/protocol.js';
import type { RelayedResult } from './RelayedResult.js';
import type { CallOptions, ToolBridge } from './ToolBridge.js';

export const LIST_BROWSERS = 'list_browsers';

/** One profile served by a multi-browser bridge. */
export interface ServedProfile {
  name: string;
  /** The profile's own bridge (an McpBridge). */
  bridge: ToolBridge & { status(): Promise<BrowserStatus> };
}

/** The parts of a daemon's status that `list_browsers` reports. */
export type BrowserStatus = Pick<DaemonStatus, 'state' | 'lastError' | 'browser'>;

/** A served browser as `list_browsers` reports it. */
export interface BrowserEntry {
  name: string;
  kind: 'launched' | 'external' | null;
  state: string;
  /** Where an external browser is reached, credentials redacted; null for a launched one. */
  endpoint: string | null;
  lastError: string | null;
}

/**
 * `tabmux mcp serve --profile A --profile B`: one MCP server in front of one bridge per profile. Every tool takes a
 * required `browser` argument naming the profile, which is taken off before the call goes to that profile's bridge;
 * there is no default browser, so an agent never acts in one it did not mean. Each profile's daemon starts on the
 * first call that names it, and the sessions in it are the bridge's own, so session ids are per profile.
 */
export class MultiBridge implements ToolBridge {
  readonly #profiles: readonly ServedProfile[];

  constructor(profiles: readonly ServedProfile[]) {
    if (profiles.length < 2) {
      throw new TabmuxError('invalid_params', 'a multi-browser bridge needs at least two profiles');
    }
    this.#profiles = profiles;
  }

  setClientName(name: string | undefined): void {
    for (const { bridge } of this.#profiles) {
      bridge.setClientName(name);
    }
  }

  /** Only the first profile warms up: it answers tools/list. The others start when a call first names them. */
  warmUp(): void {
    this.#profiles[0]?.bridge.warmUp();
  }

  /** Sessions are made on first use in each profile, so nothing starts in a browser the agent never uses. */
  start(): void {
    return undefined;
  }

  async listTools(): Promise<ToolInfo[]> {
    let lastError: unknown;
    // Every profile serves the same tools; the first that answers gives the list.
    for (const { bridge } of this.#profiles) {
      try {
        const tools = await bridge.listTools();
        return [...tools.map((tool) => this.#withBrowser(tool)), this.#listBrowsersTool()];
      } catch (error) {
        lastError = error;
      }
    }
    throw TabmuxError.from(lastError);
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult | RelayedResult> {
    if (name === LIST_BROWSERS) {
      return this.#listBrowsers();
    }
    const { browser, ...rest } = args;
    const served = this.#profiles.find((profile) => profile.name === browser);
    if (served === undefined) {
      const what = browser === undefined ? 'needs a browser argument' : `got browser ${JSON.stringify(browser)}, which is not served here`;
      return invalid(`${name} ${what}: pass one of ${this.#names().join(', ')} (call ${LIST_BROWSERS} to see them)`);
    }
    return served.bridge.callTool(name, rest, options);
  }

  async close(): Promise<void> {
    await Promise.all(this.#profiles.map(({ bridge }) => bridge.close()));
  }

  /** Each served profile with its kind and state, from its daemon's status (starting the daemon if it is not running). */
  async browsers(): Promise<BrowserEntry[]> {
    return Promise.all(
      this.#profiles.map(async ({ name, bridge }): Promise<BrowserEntry> => {
        try {
          return describe(name, await bridge.status());
        } catch (error) {
          return { name, kind: null, state: 'unavailable', endpoint: null, lastError: TabmuxError.from(error).message };
        }
      }),
    );
  }

  async #listBrowsers(): Promise<ToolResult> {
    const entries = await this.browsers();
    const lines = entries.map((entry) => {
      const facts = [entry.kind ?? 'unknown kind', entry.state, entry.endpoint, entry.lastError === null ? null : `last error: ${entry.lastError}`];
      return `- ${entry.name}: ${facts.filter((fact) => fact !== null).join(', ')}`;
    });
    const text = ['## Browsers', ...lines, '', 'Pass one of these names as the browser argument on every tool call.'].join('\n');
    return { content: [{ type: 'text', text }], structuredContent: { browsers: entries } };
  }

  #names(): string[] {
    return this.#profiles.map((profile) => profile.name);
  }

  #withBrowser(tool: ToolInfo): ToolInfo {
    const browser = {
      type: 'string',
      enum: this.#names(),
      description: `The browser to use: one of ${this.#names().join(', ')}. Required; call ${LIST_BROWSERS} to see each browser's kind and state.`,
    };
    const required = (tool.inputSchema.required ?? []).filter((name) => name !== 'browser');
    return {
      ...tool,
      inputSchema: { ...tool.inputSchema, properties: { browser, ...tool.inputSchema.properties }, required: ['browser', ...required] },
    };
  }

  #listBrowsersTool(): ToolInfo {
    return {
      name: LIST_BROWSERS,
      description:
        `List the browsers this server serves (${this.#names().join(', ')}): each one's name, kind (launched by tabmux or ` +
        'external), connection state and, for an external one, its endpoint. Every other tool needs one of these names as its browser argument.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    };
  }
}

function describe(name: string, status: BrowserStatus): BrowserEntry {
  const { browser } = status;
  if (browser.kind === 'external') {
    return { name, kind: 'external', state: browser.state, endpoint: browser.endpoint, lastError: browser.lastError };
  }
  return { name, kind: 'launched', state: status.state, endpoint: null, lastError: status.lastError };
}

function invalid(message: string): ToolResult {
  return { content: [{ type: 'text', text: `Error: ${message}` }], isError: true, _meta: { 'tabmux/error': 'invalid_params' } };
}
