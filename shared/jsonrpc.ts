import type { WireError } from './errors.js';
import { isRecord } from './isRecord.js';

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: JsonRpcId;
  method: string;
  params?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result: unknown;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  error: WireError;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

export type JsonRpcMessage = JsonRpcRequest | JsonRpcResponse;

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** Narrows an already-parsed JSON value to a JSON-RPC request, or returns a reason it is not one. */
export function asRequest(value: unknown): JsonRpcRequest | string {
  if (!isRecord(value)) {
    return 'a JSON-RPC message must be a JSON object';
  }
  if (value['jsonrpc'] !== '2.0') {
    return 'missing "jsonrpc": "2.0"';
  }
  if (typeof value['method'] !== 'string') {
    return '"method" must be a string';
  }
  const id = value['id'];
  if (id !== undefined && !isId(id)) {
    return '"id" must be a string or a number';
  }
  const request: JsonRpcRequest = { jsonrpc: '2.0', method: value['method'] };
  if (id !== undefined) {
    request.id = id;
  }
  if (value['params'] !== undefined) {
    request.params = value['params'];
  }
  return request;
}

export function asResponse(value: unknown): JsonRpcResponse | undefined {
  if (!isRecord(value) || value['jsonrpc'] !== '2.0' || 'method' in value) {
    return undefined;
  }
  const id = value['id'];
  if (id !== null && !isId(id)) {
    return undefined;
  }
  const error = value['error'];
  if (isRecord(error) && typeof error['code'] === 'number' && typeof error['message'] === 'string') {
    const wire: WireError = { code: error['code'], message: error['message'] };
    const data = error['data'];
    if (isRecord(data) && typeof data['code'] === 'string') {
      // The code is validated by TabmuxError.fromWire; keep the raw string here.
      Object.assign(wire, { data: { code: data['code'] } });
    }
    return { jsonrpc: '2.0', id, error: wire };
  }
  if ('result' in value) {
    return { jsonrpc: '2.0', id, result: value['result'] };
  }
  return undefined;
}
