import { terminalSafe } from '../../../shared/terminalText.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogSink = (line: string) => void;

/**
 * One leveled logger with scopes. It writes to stderr (a daemon's stderr is its log file), never to stdout: in `tabmux mcp serve` stdout
 * belongs to the protocol.
 */
export class Logger {
  constructor(
    private readonly scope: string,
    private readonly sink: LogSink,
    private readonly level: LogLevel,
  ) {}

  static toStderr(scope: string, level: LogLevel = levelFromEnv()): Logger {
    return new Logger(scope, streamSink(process.stderr), level);
  }

  static silent(): Logger {
    return new Logger('', () => undefined, 'error');
  }

  child(scope: string): Logger {
    return new Logger(`${this.scope}:${scope}`, this.sink, this.level);
  }

  debug(message: string): void {
    this.#log('debug', message);
  }

  info(message: string): void {
    this.#log('info', message);
  }

  warn(message: string): void {
    this.#log('warn', message);
  }

  error(message: string): void {
    this.#log('error', message);
  }

  #log(level: LogLevel, message: string): void {
    if (ORDER[level] < ORDER[this.level]) {
      return;
    }
    try {
      // Messages carry names agents chose (session labels) and what pages and workers wrote; the log is read in terminals.
      this.sink(`${isoTimestamp(Date.now())} ${level.toUpperCase()} [${this.scope}] ${terminalSafe(message)}\n`);
    } catch {
      // Logging must never take the process down (a full disk, a closed stderr).
    }
  }
}

/**
 * `Date.prototype.toISOString`'s text for a time, from the UTC fields alone: V8's own formatting sets up the local
 * time zone on first use, which maps about a megabyte of ICU's time-zone data into a process for good (the daemon
 * logs from its first moment and otherwise never needs a time zone).
 */
export function isoTimestamp(ms: number): string {
  const date = new Date(ms);
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}.${pad(date.getUTCMilliseconds(), 3)}Z`
  );
}

/** The part of a stream a log sink uses. */
export interface LogStream {
  write(line: string): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

const sinks = new WeakMap<LogStream, LogSink>();

/**
 * Lines written to a stream until it fails. A closed pipe (`tabmux daemon run | head`, a terminal gone) fails every
 * write, and the stream reports each failure as an error event: unheard, each would be an uncaught exception, whose
 * report is logged to the same stream, and the process would spin on that for ever instead of serving. So the first
 * failure ends the log and the process carries on without it, as with a full disk.
 */
export function streamSink(stream: LogStream): LogSink {
  let sink = sinks.get(stream);
  if (!sink) {
    let failed = false;
    stream.on('error', () => {
      failed = true;
    });
    sink = (line) => {
      if (!failed) {
        stream.write(line);
      }
    };
    sinks.set(stream, sink);
  }
  return sink;
}

function levelFromEnv(): LogLevel {
  const value = process.env['TABMUX_LOG_LEVEL'];
  return value === 'debug' || value === 'info' || value === 'warn' || value === 'error' ? value : 'info';
}
