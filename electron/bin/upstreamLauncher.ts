import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
// Before upstream's modules: what they need of the runtime beyond Node 20 (see workerRuntime.ts).
import './workerRuntime.js';

/**
 * A daemon's first upstream worker, started before its browser: it loads chrome-devtools-mcp's modules while Chrome
 * launches, then reads its command line from fd 3 (one JSON line: upstream's entry point and its arguments, which
 * name the browser) and runs upstream's own entry point with it, as `node <entry> <args...>` would. Loading is most
 * of a worker's start-up, and Chrome's launch most of the rest, so a daemon that does both at once is ready sooner.
 *
 * Only modules that read no arguments when loaded are loaded early (upstream reads its flags when its entry point
 * runs). If they cannot be (another upstream layout), the entry point simply loads them itself.
 */
const require = createRequire(import.meta.url);
const COMMAND_FD = 3;
/** Far longer than any command line the daemon writes; a longer one is not a command line. */
const MAX_COMMAND_BYTES = 64 * 1024;

function loadEarly(): void {
  let root: string;
  try {
    root = join(dirname(require.resolve('chrome-devtools-mcp/package.json')), 'build', 'src');
  } catch {
    return;
  }
  for (const module of ['third_party/index.js', 'index.js']) {
    import(pathToFileURL(join(root, module)).href).catch(() => undefined);
  }
}

/** The command line, or undefined when fd 3 closed first (the daemon gave up on this worker) or sent no command. */
function readCommand(): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    let input: Socket;
    try {
      input = new Socket({ fd: COMMAND_FD, readable: true, writable: false });
    } catch {
      resolve(undefined);
      return;
    }
    let text = '';
    const finish = (command: string[] | undefined): void => {
      input.destroy();
      resolve(command);
    };
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      text += chunk;
      const newline = text.indexOf('\n');
      if (newline >= 0) {
        finish(parseCommand(text.slice(0, newline)));
      } else if (text.length > MAX_COMMAND_BYTES) {
        finish(undefined);
      }
    });
    input.on('end', () => finish(undefined));
    input.on('error', () => finish(undefined));
  });
}

function parseCommand(line: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    return Array.isArray(parsed) && parsed.length > 0 && parsed.every((part): part is string => typeof part === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}

loadEarly();
const command = await readCommand();
if (command === undefined) {
  process.stderr.write('tabmux upstream launcher: no command line on fd 3; exiting\n');
  process.exit(0);
}
const [entry, ...args] = command;
if (entry !== undefined) {
  process.argv.splice(1, process.argv.length - 1, entry, ...args);
  await import(pathToFileURL(entry).href);
}
