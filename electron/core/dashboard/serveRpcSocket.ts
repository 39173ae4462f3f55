import type { WebSocket } from 'ws';
import { TabmuxError } from '../../../shared/errors.js';
import { asRequest } from '../../../shared/jsonrpc.js';
import { SUPERVISOR_EVENT_METHOD } from '../../../shared/supervisor.js';
import type { SupervisorService } from '../supervisor/SupervisorService.js';

/** A UI that stops reading must not make the server buffer without bound; past this it is dropped and reconnects. */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

/**
 * Serves the supervisor API as JSON-RPC 2.0 over one WebSocket: one JSON message per frame, requests answered in
 * any order, every supervisor event pushed as a `supervisor/event` notification.
 */
export function serveRpcSocket(socket: WebSocket, service: SupervisorService): void {
  const send = (message: unknown): void => {
    if (socket.readyState !== socket.OPEN) {
      return;
    }
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      // The client reloads a snapshot on reconnect, so nothing is lost by starting over.
      socket.close(1013, 'The dashboard fell too far behind; reconnecting.');
      return;
    }
    socket.send(JSON.stringify(message));
  };
  const unsubscribe = service.onEvent((event) => send({ jsonrpc: '2.0', method: SUPERVISOR_EVENT_METHOD, params: event }));
  socket.on('close', unsubscribe);
  socket.on('error', () => undefined);
  socket.on('message', (data, isBinary) => {
    if (isBinary) {
      send({ jsonrpc: '2.0', id: null, error: new TabmuxError('invalid_request', 'send JSON-RPC as text frames').toWire() });
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(new Uint8Array(data)).toString('utf8');
    void answer(text, service, send);
  });
}

async function answer(text: string, service: SupervisorService, send: (message: unknown) => void): Promise<void> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    send({ jsonrpc: '2.0', id: null, error: new TabmuxError('parse_error', 'the message is not valid JSON').toWire() });
    return;
  }
  const request = asRequest(json);
  if (typeof request === 'string') {
    send({ jsonrpc: '2.0', id: null, error: new TabmuxError('invalid_request', request).toWire() });
    return;
  }
  const { id } = request;
  try {
    const result = await service.dispatch(request.method, request.params);
    if (id !== undefined) {
      send({ jsonrpc: '2.0', id, result });
    }
  } catch (error) {
    if (id !== undefined) {
      send({ jsonrpc: '2.0', id, error: TabmuxError.from(error).toWire() });
    }
  }
}
