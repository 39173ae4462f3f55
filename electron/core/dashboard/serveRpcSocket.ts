import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { TabmuxError } from '../../../shared/errors.js';
import { SUPERVISOR_EVENT_METHOD, type SupervisorEvent } from '../../../shared/supervisor.js';
import type { Logger } from '../platform/Logger.js';
import type { SupervisorService } from '../supervisor/SupervisorService.js';
import { RpcServerConnection } from '../transport/RpcServerConnection.js';
import { maxResponseBytes } from '../transport/socketLimits.js';

/** A UI that stops reading must not make the server buffer without bound; past this it is dropped and reconnects. */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

/**
 * Serves the supervisor API as JSON-RPC 2.0 over one WebSocket: one JSON message per frame, requests answered in
 * any order, every supervisor event pushed as a `supervisor/event` notification.
 */
export function serveRpcSocket(socket: WebSocket, service: SupervisorService, logger: Logger): void {
  // This socket passed the dashboard's token and origin checks; live pictures and takeover input are its own.
  const viewer = { id: `dashboard-${randomUUID()}`, push: (event: SupervisorEvent) => connection.notify(SUPERVISOR_EVENT_METHOD, event) };
  const connection = new RpcServerConnection({
    write: (text) => {
      if (socket.readyState !== socket.OPEN) {
        return;
      }
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
        // The client reloads a snapshot on reconnect, so nothing is lost by starting over.
        logger.warn('a dashboard fell too far behind reading; closing its connection so it reconnects');
        socket.close(1013, 'The dashboard fell too far behind; reconnecting.');
        return;
      }
      socket.send(text);
    },
    dispatch: (request) => service.dispatch(request.method, request.params, viewer),
    logger,
    maxMessageBytes: maxResponseBytes(),
  });
  const unsubscribe = service.onEvent((event) => connection.notify(SUPERVISOR_EVENT_METHOD, event));
  socket.on('close', () => {
    unsubscribe();
    // A viewer that went away stops its screencasts.
    void service.dropViewer(viewer.id);
  });
  socket.on('error', () => undefined);
  socket.on('message', (data, isBinary) => {
    if (isBinary) {
      connection.handleUnreadable(new TabmuxError('invalid_request', 'send JSON-RPC as text frames'), '');
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(new Uint8Array(data)).toString('utf8');
    connection.handleText(text);
  });
}
