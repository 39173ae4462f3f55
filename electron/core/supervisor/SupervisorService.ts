import { z } from 'zod';
import { TabmuxError } from '../../../shared/errors.js';
import { controlParams } from '../../../shared/protocol.js';
import {
  FORWARDED_DAEMON_METHODS,
  isSupervisorMethod,
  type SupervisorEvent,
  type SupervisorMethod,
} from '../../../shared/supervisor.js';
import { validateProfileName } from '../ProfileStore.js';
import type { Supervisor } from './Supervisor.js';

const profileName = z
  .string()
  .max(40)
  .refine((name) => {
    try {
      validateProfileName(name);
      return true;
    } catch {
      return false;
    }
  }, "a profile name is 1-40 lowercase letters, digits, '-' or '_'");

const profileParams = z.object({ profile: profileName });

const paramsSchemas = {
  'supervisor/snapshot': z.object({}).optional(),
  'supervisor/profile.start': profileParams,
  'supervisor/profile.stop': profileParams,
  'supervisor/profile.restart': profileParams,
  'supervisor/daemon': z.object({ profile: profileName, method: z.enum(FORWARDED_DAEMON_METHODS), params: z.unknown().optional() }),
} as const satisfies Record<SupervisorMethod, z.ZodType>;

/**
 * The one dispatcher for the supervisor API: the tray window's IPC bridge and the dashboard's WebSocket both hand
 * it a method name and untrusted params, and get back a result or a `TabmuxError`. Params are checked here, at the
 * boundary; a forwarded daemon call is also checked against the daemon's own schema so a bad call fails before it
 * leaves this process.
 */
export class SupervisorService {
  readonly #supervisor: Supervisor;

  constructor(supervisor: Supervisor) {
    this.#supervisor = supervisor;
  }

  onEvent(listener: (event: SupervisorEvent) => void): () => void {
    return this.#supervisor.onEvent(listener);
  }

  /** Results are plain JSON values: each is the type `SupervisorResults` declares for its method. */
  async dispatch(method: string, params: unknown): Promise<unknown> {
    if (!isSupervisorMethod(method)) {
      throw new TabmuxError('unknown_method', `unknown method ${JSON.stringify(method)}; the supervisor serves supervisor/snapshot, supervisor/profile.* and supervisor/daemon`);
    }
    switch (method) {
      case 'supervisor/snapshot':
        parse(paramsSchemas[method], method, params);
        return this.#supervisor.snapshot();
      case 'supervisor/profile.start':
        return this.#supervisor.startProfile(parse(paramsSchemas[method], method, params).profile);
      case 'supervisor/profile.stop':
        return this.#supervisor.stopProfile(parse(paramsSchemas[method], method, params).profile);
      case 'supervisor/profile.restart':
        return this.#supervisor.restartProfile(parse(paramsSchemas[method], method, params).profile);
      case 'supervisor/daemon': {
        const call = parse(paramsSchemas[method], method, params);
        const checked = parse(controlParams[call.method], call.method, call.params);
        return this.#supervisor.forward(call.profile, call.method, checked);
      }
    }
  }
}

function parse<S extends z.ZodType>(schema: S, method: string, params: unknown): z.output<S> {
  const result = schema.safeParse(params ?? {});
  if (!result.success) {
    throw new TabmuxError('invalid_params', `invalid params for ${method}: ${describe(result.error)}`);
  }
  return result.data;
}

function describe(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(params)'}: ${issue.message}`).join('; ');
}
