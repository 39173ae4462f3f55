import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../../shared/model.js';
import { hasTerminalControl, terminalSafe } from '../../../shared/terminalText.js';
import { asToolResult, textOf } from '../../../shared/toolResult.js';
import { cliDriver } from '../../helpers/cliDriver.js';
import { cliPath } from '../../helpers/runCli.js';
import { TOPOLOGIES, useHostileRig, type HostileRig } from '../../helpers/hostileRig.js';

/**
 * What a page writes (console messages, text, its title) and the names an agent chooses (its MCP client name, its
 * `session_id` in `--session-arg` mode) reach the people who run the CLI in a terminal. None of their terminal
 * controls is printed: ESC sequences (a window title, a cleared screen), the 8-bit CSI U+009B, carriage returns, and
 * bidirectional overrides are shown as escapes, on stdout and stderr alike, while `--json` keeps them exactly (the
 * ground truth that they were there). The CLI is the built one, run as a person runs it.
 */

/** Terminal controls of every kind, written by a page's script or chosen by an agent. */
const ESCAPES = '\u001b]0;owned\u0007\u001b[2J\u009b31m\r\u202eevil\u007f';
const SHOWN = '\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u000d\\u202eevil\\u007f';
/** The same, as JavaScript source inside a page (so the HTML itself holds no control character). */
const IN_SCRIPT = terminalSafe(JSON.stringify(ESCAPES));
/** How JSON writes them (`\r` for the carriage return). */
const IN_JSON = '\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\r\\u202eevil\\u007f';

interface Bridge {
  client: Client;
  call: (name: string, args: Record<string, unknown>) => Promise<void>;
}

/** `tabmux mcp serve` as an MCP client starts it, with the client name an agent framework chose. */
async function bridge(rig: HostileRig, name: string, args: string[] = []): Promise<Bridge> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('TABMUX_')) {
      env[key] = value;
    }
  }
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath(), 'mcp', 'serve', ...args], env: { ...env, TABMUX_HOME: rig.t.home, TABMUX_HEADLESS: '1' }, stderr: 'ignore' });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    call: async (tool, toolArgs) => {
      const result = await client.callTool({ name: tool, arguments: toolArgs });
      expect(result.isError, JSON.stringify(result)).not.toBe(true);
    },
  };
}

/** Fails the test naming the first terminal control in a command's output. */
function expectPrintable(what: string, output: string): void {
  let at = -1;
  for (let index = 0; index < output.length && at === -1; index++) {
    at = hasTerminalControl(output.charAt(index)) ? index : -1;
  }
  expect(at, `${what} printed a terminal control: ${JSON.stringify(output.slice(Math.max(0, at - 40), at + 20))}`).toBe(-1);
}

describe.each(TOPOLOGIES)('terminal output of the CLI, on $name', (topology) => {
  const rig = useHostileRig(topology);

  it('shows the controls in session labels an agent chose as escapes, in session list and daemon status', async () => {
    const cli = cliDriver(rig().t.home);
    const named = await bridge(rig(), `client${ESCAPES}`);
    const framework = await bridge(rig(), 'framework', ['--session-arg']);
    try {
      await named.call('list_pages', {});
      await framework.call('list_pages', { session_id: `agent${ESCAPES}` });
      const listed = await cli.json<SessionInfo[]>(['session', 'list']);
      expect(listed.map((session) => session.label)).toEqual(expect.arrayContaining([`client${ESCAPES}`, `agent${ESCAPES}`]));

      for (const command of [['session', 'list'], ['daemon', 'status']]) {
        const run = await cli.tabmux(command);
        expect(run.code).toBe(0);
        expectPrintable(command.join(' '), run.stdout + run.stderr);
        expect(run.stdout).toContain(`client${SHOWN}`);
        expect(run.stdout).toContain(`agent${SHOWN}`);
        const json = await cli.tabmux([...command, '--json']);
        expectPrintable(`${command.join(' ')} --json`, json.stdout);
        expect(json.stdout).toContain(IN_JSON);
      }
    } finally {
      await Promise.all([named.client.close(), framework.client.close()]);
    }
  });

  it('shows the controls a page writes to its console, text and title as escapes in mcp call, pages and log', async () => {
    const cli = cliDriver(rig().t.home);
    const { id } = await rig().control.call('tabmux/session.create', { label: 'reader' });
    try {
      const url = rig().server.page(`<p id="text"></p><script>const e = ${IN_SCRIPT}; console.log('console says ' + e); document.getElementById('text').textContent = 'page says ' + e; document.title = 'title ' + e;</script>`, 'Hostile', 'escapes');
      await cli.ok(['mcp', 'call', '--session', id, 'navigate_page', JSON.stringify({ url })]);

      const messages = await cli.tabmux(['mcp', 'call', '--session', id, 'list_console_messages']);
      expect(messages.code).toBe(0);
      expectPrintable('mcp call list_console_messages', messages.stdout + messages.stderr);
      expect(messages.stdout).toContain(`console says ${SHOWN}`);
      const exact = (await cli.tabmux(['mcp', 'call', '--session', id, 'list_console_messages', '--json'])).stdout;
      expectPrintable('mcp call list_console_messages --json', exact);
      expect(textOf(asToolResult(JSON.parse(exact)))).toContain(`console says ${ESCAPES}`);

      const snapshot = await cli.tabmux(['mcp', 'call', '--session', id, 'take_snapshot']);
      expect(snapshot.code).toBe(0);
      expectPrintable('mcp call take_snapshot', snapshot.stdout + snapshot.stderr);
      expect(snapshot.stdout).toContain('page says \\u001b');
      const exactSnapshot = (await cli.tabmux(['mcp', 'call', '--session', id, 'take_snapshot', '--json'])).stdout;
      expectPrintable('mcp call take_snapshot --json', exactSnapshot);
      expect(exactSnapshot).toContain('page says \\u001b');

      const failed = await cli.tabmux(['mcp', 'call', '--session', id, 'evaluate_script', JSON.stringify({ function: `() => { throw new Error(${IN_SCRIPT}); }` })]);
      expect(failed.code).toBe(1);
      expectPrintable('a failed mcp call', failed.stdout + failed.stderr);
      expect(failed.stderr).toContain('\\u001b]0;owned');

      for (const command of [['pages'], ['log', '--session', id]]) {
        const run = await cli.tabmux(command);
        expect(run.code).toBe(0);
        expectPrintable(command.join(' '), run.stdout + run.stderr);
      }
      expect((await cli.tabmux(['log', '--session', id])).stdout).toContain(`console says ${SHOWN}`);
    } finally {
      await rig().control.call('tabmux/session.close', { session: id });
    }
  });
});
