import * as z from 'zod/mini';
import './zodMessages.js';
import { isErrorCode, TabmuxError, type ErrorCode } from './errors.js';

/**
 * How a supervisor call's outcome crosses Electron IPC. `ipcRenderer.invoke` turns a thrown error into a plain
 * Error whose message is prefixed with the channel and whose code is lost, so the main process never throws: it
 * resolves with this envelope, and the window rebuilds the `TabmuxError` with its code and message intact.
 */
export type IpcReply = { ok: true; result: unknown } | { ok: false; error: { code: ErrorCode; message: string } };

const ipcReplySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string() }) }),
]);

export function ipcSuccess(result: unknown): IpcReply {
  return { ok: true, result };
}

export function ipcFailure(error: unknown): IpcReply {
  const failure = TabmuxError.from(error);
  return { ok: false, error: { code: failure.code, message: failure.message } };
}

/** Runs the work and wraps its outcome; never rejects. */
export async function toIpcReply(work: () => Promise<unknown>): Promise<IpcReply> {
  try {
    return ipcSuccess(await work());
  } catch (error) {
    return ipcFailure(error);
  }
}

/** The result inside an envelope, or its error thrown as a `TabmuxError`. Anything else is a protocol mismatch. */
export function fromIpcReply(value: unknown): unknown {
  const reply = ipcReplySchema.safeParse(value);
  if (!reply.success) {
    throw new TabmuxError('protocol_mismatch', 'The tray app answered in a form this window does not understand; restart tabmux.');
  }
  if (reply.data.ok) {
    return reply.data.result;
  }
  const { code, message } = reply.data.error;
  throw new TabmuxError(isErrorCode(code) ? code : 'internal', message);
}
