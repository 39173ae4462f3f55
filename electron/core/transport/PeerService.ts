import type { JsonRpcRequest } from '../../../shared/jsonrpc.js';

/** One client connection, whatever carries it (Unix socket, WebSocket, IPC). */
export interface Peer {
  readonly id: string;
  /** Pushes a notification (an event) to the client. */
  notify(method: string, params: unknown): void;
}

/** A connection's view of the service: its requests are dispatched with its own state (hello, bound session). */
export interface PeerHandle {
  dispatch(request: JsonRpcRequest): Promise<unknown>;
  close(): void;
}

/** What a transport serves its connections with: each one opened as a peer, and its requests handed to it. */
export interface PeerService {
  open(peer: Peer): PeerHandle;
}
