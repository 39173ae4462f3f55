import { controlResultSchema, isControlMethod } from '../../shared/protocol.js';
import { isRecord } from '../../shared/isRecord.js';
import { supervisorResultSchema, type SupervisorMethod, type SupervisorParams, type SupervisorResults } from '../../shared/supervisor.js';

/**
 * The result of a supervisor call checked against the method's schema (a forwarded daemon call against the daemon
 * method's own result), or undefined when it has another shape: an old server, a proxy's error page. A wrong message
 * becomes a clear error instead of corrupting the store.
 */
export function checkSupervisorResult<M extends SupervisorMethod>(method: M, params: SupervisorParams[M], value: unknown): SupervisorResults[M] | undefined {
  const parsed = supervisorResultSchema(method).safeParse(value);
  if (!parsed.success) {
    return undefined;
  }
  const call: unknown = params;
  if (method === 'supervisor/daemon' && isRecord(call) && typeof call['method'] === 'string' && isControlMethod(call['method'])) {
    if (!controlResultSchema(call['method']).safeParse(value).success) {
      return undefined;
    }
  }
  return parsed.data;
}
