import type * as z from 'zod/mini';
import { TabmuxError } from '../../../shared/errors.js';
import { controlMethods } from '../../../shared/protocol.js';
import { isSupervisorMethod, supervisorMethods, type SupervisorEvent } from '../../../shared/supervisor.js';
import type { Viewer } from './PictureRelay.js';
import type { Supervisor } from './Supervisor.js';

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

  /** A dashboard started or stopped: the daemons re-read where dashboards listen (see `Supervisor.announceDashboards`). */
  dashboardsChanged(): Promise<void> {
    return this.#supervisor.announceDashboards();
  }

  /** A UI connection went away: its pictures stop. */
  dropViewer(viewerId: string): Promise<void> {
    return this.#supervisor.pictures.dropViewer(viewerId);
  }

  /**
   * Results are plain JSON values: each is the type `SupervisorResults` declares for its method. `viewer` is the UI
   * connection that asks (the dashboard's authenticated WebSocket, the tray window): live pictures and takeover
   * input belong to it, and need it.
   */
  async dispatch(method: string, params: unknown, viewer?: Viewer): Promise<unknown> {
    if (!isSupervisorMethod(method)) {
      throw new TabmuxError('unknown_method', `unknown method ${JSON.stringify(method)}; the supervisor serves supervisor/snapshot, supervisor/profile.*, supervisor/daemon and supervisor/pictures.*`);
    }
    switch (method) {
      case 'supervisor/snapshot':
        parse(supervisorMethods[method].params, method, params);
        return this.#supervisor.snapshot();
      case 'supervisor/profile.start':
        return this.#supervisor.startProfile(parse(supervisorMethods[method].params, method, params).profile);
      case 'supervisor/profile.stop':
        return this.#supervisor.stopProfile(parse(supervisorMethods[method].params, method, params).profile);
      case 'supervisor/profile.restart':
        return this.#supervisor.restartProfile(parse(supervisorMethods[method].params, method, params).profile);
      case 'supervisor/profile.addExternal': {
        const { isolation, ...request } = parse(supervisorMethods[method].params, method, params);
        return this.#supervisor.addExternalProfile(isolation === undefined ? request : { ...request, isolation });
      }
      case 'supervisor/daemon': {
        const call = parse(supervisorMethods[method].params, method, params);
        const checked = parse(controlMethods[call.method].params(), call.method, call.params);
        return this.#supervisor.forward(call.profile, call.method, checked);
      }
      case 'supervisor/pictures.watch': {
        const { profile, tabs } = parse(supervisorMethods[method].params, method, params);
        return { watching: await this.#supervisor.pictures.watch(needViewer(viewer, method), profile, tabs) };
      }
      case 'supervisor/pictures.input': {
        const { profile, tabId, input } = parse(supervisorMethods[method].params, method, params);
        await this.#supervisor.pictures.input(needViewer(viewer, method).id, profile, tabId, input);
        return { sent: true };
      }
    }
  }
}

/** The window a viewer-scoped call came from; a caller without one (a test, a script) cannot watch. */
function needViewer(viewer: Viewer | undefined, method: string): Viewer {
  if (!viewer) {
    throw new TabmuxError('invalid_request', `${method} is served to a dashboard or tray window only`);
  }
  return viewer;
}

function parse<S extends z.ZodMiniType>(schema: S, method: string, params: unknown): z.output<S> {
  const result = schema.safeParse(params ?? {});
  if (!result.success) {
    throw new TabmuxError('invalid_params', `invalid params for ${method}: ${describe(result.error)}`);
  }
  return result.data;
}

function describe(error: z.core.$ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(params)'}: ${issue.message}`).join('; ');
}
