import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import type { BrowserInfo, DaemonState } from '../../../shared/model.js';
import type { ToolInfo, ToolResult } from '../../../shared/protocol.js';
import { MultiBridge, type BrowserStatus, type ServedProfile } from './MultiBridge.js';
import { asToolResult } from '../../../shared/toolResult.js';
import { RelayedResult } from './RelayedResult.js';

const TOOLS: ToolInfo[] = [
  { name: 'click', inputSchema: { type: 'object', properties: { uid: { type: 'string' } }, required: ['uid'] } },
  { name: 'list_pages', inputSchema: { type: 'object' } },
];

class FakeBridge {
  readonly calls: { name: string; args: Record<string, unknown> }[] = [];
  closed = false;

  constructor(
    private readonly profile: string,
    private readonly browser: BrowserInfo | Error,
    private readonly state: DaemonState = 'ready',
  ) {}

  setClientName(): void {}
  warmUp(): void {}
  start(): void {}
  listTools(): Promise<ToolInfo[]> {
    return Promise.resolve(TOOLS);
  }
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    this.calls.push({ name, args });
    return Promise.resolve({ content: [{ type: 'text', text: `${name} in ${this.profile}` }] });
  }
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
  status(): Promise<BrowserStatus> {
    if (this.browser instanceof Error) {
      return Promise.reject(this.browser);
    }
    return Promise.resolve({ state: this.state, lastError: null, browser: this.browser });
  }
}

const launched: BrowserInfo = { kind: 'launched', pid: 10, port: 9000, browserUrl: null, userDataDir: '/tmp/x', headless: true, executable: null };
const external: BrowserInfo = { kind: 'external', state: 'disconnected', endpoint: 'ws://host/?token=***', lastError: 'refused', attempts: 2, nextRetryAt: null };

function setup(): { multi: MultiBridge; one: FakeBridge; two: FakeBridge } {
  const one = new FakeBridge('one', launched);
  const two = new FakeBridge('two', external);
  const profiles: ServedProfile[] = [
    { name: 'one', bridge: one },
    { name: 'two', bridge: two },
  ];
  return { multi: new MultiBridge(profiles), one, two };
}

/** A bridge result as a tool result: relayed bytes read back as a client would read them. */
const plainResult = (result: ToolResult | RelayedResult): ToolResult => (result instanceof RelayedResult ? asToolResult(JSON.parse(result.json.toString('utf8'))) : result);
const textOf = (result: ToolResult | RelayedResult): string => plainResult(result).content.map((item) => ('text' in item && typeof item.text === 'string' ? item.text : '')).join('\n');

describe('MultiBridge', () => {
  it('adds a required browser enum to every tool and a list_browsers tool', async () => {
    const tools = await setup().multi.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['click', 'list_pages', 'list_browsers']);
    const [click, listPages] = tools;
    expect(click?.inputSchema.required).toEqual(['browser', 'uid']);
    expect(click?.inputSchema.properties?.['browser']).toMatchObject({ type: 'string', enum: ['one', 'two'] });
    expect(click?.inputSchema.properties).toHaveProperty('uid');
    expect(listPages?.inputSchema.required).toEqual(['browser']);
  });

  it('forwards a call to the named profile without the browser argument', async () => {
    const { multi, one, two } = setup();
    const result = await multi.callTool('click', { browser: 'two', uid: 'u1' });
    expect(textOf(result)).toBe('click in two');
    expect(two.calls).toEqual([{ name: 'click', args: { uid: 'u1' } }]);
    expect(one.calls).toEqual([]);
  });

  it('refuses a call without a browser, or naming one not served, with the choices', async () => {
    const { multi, one, two } = setup();
    const missing = plainResult(await multi.callTool('click', { uid: 'u1' }));
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('Error: click needs a browser argument: pass one of one, two (call list_browsers to see them)');
    const unknown = await multi.callTool('click', { browser: 3 });
    expect(textOf(unknown)).toBe('Error: click got browser 3, which is not served here: pass one of one, two (call list_browsers to see them)');
    expect([...one.calls, ...two.calls]).toEqual([]);
  });

  it('lists each browser with its kind, state and endpoint, and one it cannot reach as unavailable', async () => {
    const down = new FakeBridge('three', new TabmuxError('daemon_not_running', 'no Chrome found'));
    const multi = new MultiBridge([
      { name: 'one', bridge: new FakeBridge('one', launched) },
      { name: 'two', bridge: new FakeBridge('two', external) },
      { name: 'three', bridge: down },
    ]);
    expect(await multi.browsers()).toEqual([
      { name: 'one', kind: 'launched', state: 'ready', endpoint: null, lastError: null },
      { name: 'two', kind: 'external', state: 'disconnected', endpoint: 'ws://host/?token=***', lastError: 'refused' },
      { name: 'three', kind: null, state: 'unavailable', endpoint: null, lastError: 'no Chrome found' },
    ]);
    const text = textOf(await multi.callTool('list_browsers', {}));
    expect(text).toContain('- two: external, disconnected, ws://host/?token=***, last error: refused');
  });

  it('closes every profile', async () => {
    const { multi, one, two } = setup();
    await multi.close();
    expect([one.closed, two.closed]).toEqual([true, true]);
  });

  it('will not serve a single profile', () => {
    expect(() => new MultiBridge([{ name: 'one', bridge: new FakeBridge('one', launched) }])).toThrow(/at least two/);
  });
});
