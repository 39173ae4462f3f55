import { TabmuxError } from '../../shared/errors.js';
import { isRecord } from '../../shared/isRecord.js';
import type { ToolInfo, ToolResult } from '../../shared/protocol.js';
import { asToolResult } from '../../shared/toolResult.js';
import type { DaemonClient } from '../core/transport/DaemonClient.js';
import { boolOption, stringOption, type Command, type CommandContext } from './Command.js';
import { connectOrStart, tryConnect } from '../core/lifecycle/daemonProcess.js';
import { labelOption, startOptions } from './sessionOptions.js';
import { resultText } from './format.js';
import type { StepOutcome } from './batchScript.js';
import { mcpServe } from './mcpServe.js';
import { tellWhenItWaits } from './waitingHint.js';

function parseJsonArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') {
    return {};
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // The parser's own words say where it broke (as `Unexpected end of JSON input` for a quote the shell ate).
    const why = error instanceof Error ? error.message : String(error);
    throw new TabmuxError('invalid_params', `tool arguments must be a JSON object; this is not JSON (${why}): ${text.slice(0, 80)}`);
  }
  if (!isRecord(json)) {
    throw new TabmuxError('invalid_params', 'tool arguments must be a JSON object like \'{"url": "https://example.com"}\'');
  }
  return json;
}

async function bound(context: CommandContext, use: (line: SessionLine, session: string) => Promise<number>): Promise<number> {
  const session = stringOption(context.values, 'session');
  if (!session) {
    throw new TabmuxError('invalid_params', 'missing --session ID; create one with: tabmux session create');
  }
  const client = await connectOrStart(context.paths, context.profile, 'tabmux-cli');
  const line = new SessionLine(context, client, session);
  try {
    await bindAndTell(context, client, session);
    return await use(line, session);
  } finally {
    line.close();
  }
}

/**
 * The command's connection, bound to its session, for its tool calls. A call a daemon restart kept from running
 * (`daemon_restarting`) goes to the next daemon on a new connection bound to the same session, where it runs for the
 * first time. Any other failure is reported as it came (a call cut off by a stop or a crash may have run).
 */
class SessionLine {
  #client: DaemonClient;

  constructor(
    private readonly context: CommandContext,
    client: DaemonClient,
    private readonly session: string,
  ) {
    this.#client = client;
  }

  /** One tool call; a daemon that stops answering while it runs ends the wait (the client watches its answers). */
  async call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    try {
      return await callTool(this.#client, name, args);
    } catch (error) {
      if (TabmuxError.from(error).code !== 'daemon_restarting') {
        throw error;
      }
    }
    await this.#client.whenLetGo();
    this.#client.close();
    this.#client = await connectOrStart(this.context.paths, this.context.profile, 'tabmux-cli');
    await bindAndTell(this.context, this.#client, this.session);
    return callTool(this.#client, name, args);
  }

  close(): void {
    this.#client.close();
  }
}

/**
 * Binds the session, and says on stderr when it is paused: its calls then wait, with no output, until the person who
 * paused it (from the CLI or the dashboard) resumes it (or the call's timeout), and whoever runs the command should know why.
 */
async function bindAndTell(context: CommandContext, client: DaemonClient, session: string): Promise<void> {
  const bound = await client.request('tabmux/session.bind', { session });
  if (!isRecord(bound) || bound['id'] !== session) {
    // The client's own check, for its error.
    await client.bindSession(session);
    return;
  }
  if (bound['paused'] === true) {
    context.stderr(`session ${session} is paused: a person holds its calls to use its tab. This call waits until it is resumed (tabmux session resume --session ${session}, or Resume in the dashboard)`);
  }
}

const IMAGE_EXTENSIONS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

/** Writes each image of `result` into `dir` (made if need be) as TOOL-TIME-N.EXT; returns the paths by content index. */
async function saveImages(result: ToolResult, dir: string, tool: string): Promise<Map<number, string>> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const path = await import('node:path');
  const saved = new Map<number, string>();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (const [index, item] of result.content.entries()) {
    const data = item['data'];
    const mime = item['mimeType'];
    if (item.type !== 'image' || typeof data !== 'string' || typeof mime !== 'string') {
      continue;
    }
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `${tool}-${stamp}-${index}.${IMAGE_EXTENSIONS[mime] ?? 'bin'}`);
    await writeFile(file, Buffer.from(data, 'base64'), { mode: 0o600 });
    saved.set(index, file);
  }
  return saved;
}

async function callTool(client: DaemonClient, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return asToolResult(await client.request('tools/call', { name, arguments: args }));
}

/**
 * `--new-session`: from nothing to a first answer in one CLI process. The daemon is started when none runs, and the
 * session stays open after the call (its id goes to stderr) for later calls with --session, until it is closed or
 * the reaper ends it.
 */
async function inNewSession(context: CommandContext, use: (line: SessionLine, session: string) => Promise<number>): Promise<number> {
  if (stringOption(context.values, 'session') !== undefined) {
    throw new TabmuxError('invalid_params', 'give either --session ID or --new-session, not both');
  }
  const label = labelOption(context.values);
  const client = await connectOrStart(context.paths, context.profile, 'tabmux-cli', startOptions(context.values));
  let line: SessionLine | undefined;
  try {
    const session = await client.createSession(label);
    await client.bindSession(session.id);
    context.stderr(`session ${session.id} (pass --session ${session.id} to keep using its tab; tabmux session close ends it)`);
    line = new SessionLine(context, client, session.id);
    return await use(line, session.id);
  } finally {
    client.close();
    line?.close();
  }
}

const mcpCall: Command = {
  words: ['mcp', 'call'],
  usage: "tabmux mcp call (--session ID | --new-session [--label TEXT] [--chrome PATH] [--headless]) TOOL ['<json args>'] [--images DIR]",
  summary:
    "Call one tool in a session's tab; prints the result text, exit 1 on a tool error. --new-session creates the session " +
    '(and starts the daemon if needed) in the same process and prints its id on stderr',
  options: {
    session: { type: 'string', short: 's' },
    'new-session': { type: 'boolean' },
    label: { type: 'string' },
    chrome: { type: 'string' },
    headless: { type: 'boolean' },
    images: { type: 'string' },
  },
  optionHelp: {
    images: { text: 'write the images of the result (a screenshot) into this folder and print their paths', value: 'DIR', default: 'print what each image is, its data only with --json' },
    'new-session': { text: 'create a session for this call (starting the daemon if none runs) and print its id on stderr; it stays open for later --session calls' },
    label: { text: 'a name for the session --new-session creates', value: 'TEXT' },
  },
  examples: [
    'tabmux mcp call --session "$S" new_page \'{"url": "https://example.com"}\'',
    'tabmux mcp call --session "$S" take_snapshot',
    'tabmux mcp call --new-session --headless list_pages',
    'tabmux mcp call --session "$S" take_screenshot --images ./shots',
  ],
  positionals: [1, 2],
  run: (context) => {
    const [tool = '', argsText] = context.positionals;
    const args = parseJsonArgs(argsText);
    const call = async (line: SessionLine, session: string): Promise<number> => {
      const result = await tellWhenItWaits(context, session, line.call(tool, args));
      const imagesDir = stringOption(context.values, 'images');
      const saved = imagesDir === undefined ? new Map<number, string>() : await saveImages(result, imagesDir, tool);
      if (context.json) {
        context.stdout(JSON.stringify(result, null, 2));
      } else if (result.isError) {
        context.stderr(resultText(result, saved));
      } else {
        context.stdout(resultText(result, saved));
      }
      return result.isError ? 1 : 0;
    };
    return boolOption(context.values, 'new-session') ? inNewSession(context, call) : bound(context, call);
  },
};

const mcpBatch: Command = {
  words: ['mcp', 'batch'],
  usage: 'tabmux mcp batch --session ID --script FILE [--fail-fast]',
  summary: 'Run a JSON list of {tool, args} steps in one session; args may refer to earlier results',
  options: { session: { type: 'string', short: 's' }, script: { type: 'string' }, 'fail-fast': { type: 'boolean' } },
  optionHelp: {
    script: { text: 'a JSON file with a list of {"tool", "args", "id"?} steps; - reads it from stdin', value: 'FILE' },
    'fail-fast': { text: 'stop at the first step that fails', default: 'run every step' },
  },
  examples: ['tabmux mcp batch --session "$S" --script login.json', 'tabmux mcp batch --session "$S" --script - --fail-fast < steps.json'],
  run: async (context) => {
    const file = stringOption(context.values, 'script');
    if (!file) {
      throw new TabmuxError('invalid_params', 'missing --script FILE (a JSON list of {"tool": ..., "args": {...}})');
    }
    const named = file === '-' ? 'from stdin' : file;
    let text: string;
    try {
      // Node's promise-based file module loads here, not with every `mcp serve` and `mcp call`.
      const { readFile } = await import('node:fs/promises');
      text = await readFile(file === '-' ? '/dev/stdin' : file, 'utf8');
    } catch (error) {
      throw new TabmuxError('invalid_params', `cannot read batch script ${named}: ${error instanceof Error ? error.message : String(error)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new TabmuxError('invalid_params', `batch script ${named} is not valid JSON (${error instanceof Error ? error.message : String(error)}); it is a JSON list of {"tool": ..., "args": {...}}`);
    }
    // The script's schema is the only one an agent's command needs, so it loads here, not with every `mcp call`.
    const { parseBatchScript, resolveReferences } = await import('./batchScript.js');
    const steps = parseBatchScript(json);
    const failFast = boolOption(context.values, 'fail-fast');
    return bound(context, async (line, session) => {
      const outcomes: StepOutcome[] = [];
      const report: { index: number; id?: string; tool: string; args: Record<string, unknown>; result: ToolResult }[] = [];
      let failed = false;
      for (const [index, step] of steps.entries()) {
        let args: Record<string, unknown>;
        let result: ToolResult;
        try {
          args = resolveReferences(step.args, outcomes);
          result = await tellWhenItWaits(context, session, line.call(step.tool, args));
        } catch (error) {
          const failure = TabmuxError.from(error);
          args = step.args;
          result = { content: [{ type: 'text', text: `Error: ${failure.message}` }], isError: true };
        }
        outcomes.push({ id: step.id, text: resultText(result) });
        report.push({ index, ...(step.id ? { id: step.id } : {}), tool: step.tool, args, result });
        if (!context.json) {
          const write = result.isError ? context.stderr : context.stdout;
          write(`## [${index + 1}/${steps.length}] ${step.tool}${step.id ? ` (${step.id})` : ''}${result.isError ? ' failed' : ''}\n${resultText(result)}`);
        }
        if (result.isError) {
          failed = true;
          if (failFast) {
            break;
          }
        }
      }
      if (context.json) {
        context.stdout(JSON.stringify(report, null, 2));
      }
      return failed ? 1 : 0;
    });
  },
};

const mcpList: Command = {
  words: ['mcp', 'list'],
  usage: 'tabmux mcp list [--json]',
  examples: ['tabmux mcp list', 'tabmux mcp list --json | jq -r ".[].name"'],
  summary: "List the tools as agents see them (from the running daemon, else from chrome-devtools-mcp alone: no daemon or Chrome is started)",
  run: async (context) => {
    const client = await tryConnect(context.paths, context.profile, 'tabmux-cli', { looksOnly: true });
    let tools: ToolInfo[];
    try {
      // Loaded only here: the other agents' commands never start a worker of their own.
      if (client === undefined) {
        // A profile that does not exist is said so, as every other command says it, rather than listed for.
        await new (await import('../core/profile/ProfileStore.js')).ProfileStore(context.paths).get(context.profile);
      }
      tools = client ? await client.listTools(false) : await (await import('../core/router/toolsWithoutBrowser.js')).agentToolsWithoutBrowser();
    } finally {
      client?.close();
    }
    context.stdout(context.json ? JSON.stringify(tools, null, 2) : tools.map(describeTool).join('\n'));
    return 0;
  },
};

function describeTool(tool: ToolInfo): string {
  const required = new Set(tool.inputSchema.required ?? []);
  const params = Object.keys(tool.inputSchema.properties ?? {}).map((name) => (required.has(name) ? name : `${name}?`));
  const summary = (tool.description ?? '').split('\n')[0] ?? '';
  return `${tool.name}(${params.join(', ')})\n    ${summary}`;
}

export const mcpCommands: Command[] = [mcpServe, mcpCall, mcpBatch, mcpList];
