import * as z from 'zod/mini';
import './zodMessages.js';
import { daemonEventSchema, daemonStatusSchema, profileState, tabInfoSchema, tabPictureSchema } from './modelSchemas.js';
import { pictureInputSchema } from './pictureInput.js';
import { PROFILE_NAME_PATTERN, PROFILE_NAME_RULE } from './profileName.js';
import { controlMethods, MAX_WATCHED_TABS, type ControlInput, type ControlMethod, type ControlResults } from './protocol.js';

const profileNameSchema = z.string().check(z.regex(PROFILE_NAME_PATTERN, `a profile name is ${PROFILE_NAME_RULE}`));

/**
 * The supervisor API: what a UI (the tray window through the preload, the web dashboard through its WebSocket) may
 * ask of the supervisor that sits above all profile daemons. Every method is one row of `supervisorMethods`; the
 * types, the method list and the checks on both sides derive from it, so a method is never wired by hand twice.
 */

/**
 * One profile as the UI sees it. `status` is null while the daemon is not running (or not yet reachable). `kind`
 * and `endpoint` come from the profile's config, so they are known while the daemon is down: `external` profiles
 * connect to a browser someone else runs, at `endpoint` (credentials redacted; null for `launched`).
 */
const profileViewSchema = z.object({
  name: z.string(),
  kind: z.enum(['launched', 'external']),
  endpoint: z.nullable(z.string()),
  state: profileState,
  lastError: z.nullable(z.string()),
  /** A daemon holds the profile but does not answer (stopped or stuck); `lastError` says so, and stopping the profile ends it. */
  unanswered: z.boolean(),
  status: z.nullable(daemonStatusSchema),
  tabs: z.array(tabInfoSchema),
});
export type ProfileView = z.output<typeof profileViewSchema>;

const supervisorSnapshotSchema = z.object({ profiles: z.array(profileViewSchema) });
export type SupervisorSnapshot = z.output<typeof supervisorSnapshotSchema>;

/**
 * Daemon control methods the supervisor forwards for a UI. Connection-scoped methods (hello, subscribe, bind, unbind)
 * belong to the supervisor's own connection, `tabmux/stop` is `supervisor/profile.stop`, and tool calls stay with
 * agents, so none of those are forwarded.
 */
export const FORWARDED_DAEMON_METHODS = [
  'tabmux/status',
  'tabmux/tools.list',
  'tabmux/tabs.list',
  'tabmux/tabs.open',
  'tabmux/session.create',
  'tabmux/session.list',
  'tabmux/session.close',
  'tabmux/session.page',
  'tabmux/session.attach',
  'tabmux/session.newPage',
  'tabmux/session.release',
  'tabmux/session.select',
  'tabmux/session.pause',
  'tabmux/session.resume',
  'tabmux/queue.cancel',
  'tabmux/log.query',
  'tabmux/log.picture',
  'tabmux/requests.list',
  'tabmux/requests.answer',
  'tabmux/requests.decide',
  'tabmux/policies.list',
  'tabmux/policies.add',
  'tabmux/policies.remove',
] as const satisfies readonly ControlMethod[];

export type ForwardedDaemonMethod = (typeof FORWARDED_DAEMON_METHODS)[number];

/** A forwarded daemon call; the union keeps `method` and `params` in step. */
export type DaemonCall = {
  [M in ForwardedDaemonMethod]: { profile: string; method: M; params: ControlInput<M> };
}[ForwardedDaemonMethod];

/** What a forwarded call returns: the daemon's result for that method, unchanged. */
export type DaemonCallResult = ControlResults[ForwardedDaemonMethod];

const profileParams = z.object({ profile: profileNameSchema });

const tabId = z.string().check(z.minLength(1), z.maxLength(128));
const picturesWatchParams = z.object({
  profile: profileNameSchema,
  tabs: z.array(z.object({ tabId, size: z._default(z.enum(['thumb', 'live']), 'thumb') })).check(z.maxLength(MAX_WATCHED_TABS)),
});
const picturesInputParams = z.object({ profile: profileNameSchema, tabId, input: pictureInputSchema });

/**
 * A profile on a browser the user runs, as `tabmux profile add NAME --browser-url URL [--isolation tab|window]`
 * makes it. Name and URL are plain strings here so that the one check the CLI also uses gives the error message.
 */
const addExternalParams = z.object({ name: z.string(), browserUrl: z.string(), isolation: z.optional(z.enum(['tab', 'window'])) });

/**
 * A forwarded call's own params are checked against the daemon method's schema by the supervisor (`DaemonCall`
 * gives callers the precise type); its result is one of the forwarded methods' results.
 */
const daemonCallSchema = z.object({ profile: profileNameSchema, method: z.enum(FORWARDED_DAEMON_METHODS), params: z.optional(z.unknown()) });
const daemonCallResultSchema = z.lazy(() => z.union(FORWARDED_DAEMON_METHODS.map((method) => controlMethods[method].result())));

export const supervisorMethods = {
  /** Every known profile with its daemon status and tabs; a UI loads it first and after every reconnect. */
  'supervisor/snapshot': { params: z.optional(z.object({})), result: supervisorSnapshotSchema },
  /** Resolve once the request is accepted; progress arrives as `profile` events. */
  'supervisor/profile.start': { params: profileParams, result: profileViewSchema },
  'supervisor/profile.stop': { params: profileParams, result: profileViewSchema },
  'supervisor/profile.restart': { params: profileParams, result: profileViewSchema },
  /** Stores a new external profile (errors `invalid_params`, `invalid_profile`, `profile_exists`); its daemon is not started. */
  'supervisor/profile.addExternal': { params: addExternalParams, result: profileViewSchema },
  /** Forwards one daemon control method to the profile's daemon (error `daemon_not_running` when it is down). */
  'supervisor/daemon': { params: daemonCallSchema, result: daemonCallResultSchema },
  /**
   * Live pictures for this window: the tabs of one profile it shows, replacing what it showed there before (an empty
   * list stops them). Frames arrive as `picture` events to this window alone, and stop when it goes away.
   */
  'supervisor/pictures.watch': { params: picturesWatchParams, result: z.object({ watching: z.array(z.string()) }) },
  /** Takeover input into a tab this window shows live; the daemon refuses it unless the tab's session is paused. */
  'supervisor/pictures.input': { params: picturesInputParams, result: z.object({ sent: z.literal(true) }) },
} as const satisfies Record<string, { params: z.ZodMiniType; result: z.ZodMiniType }>;

export type SupervisorMethod = keyof typeof supervisorMethods;
export type SupervisorParams = { [M in Exclude<SupervisorMethod, 'supervisor/daemon'>]: z.input<(typeof supervisorMethods)[M]['params']> } & {
  'supervisor/daemon': DaemonCall;
};
export type SupervisorResults = { [M in Exclude<SupervisorMethod, 'supervisor/daemon'>]: z.output<(typeof supervisorMethods)[M]['result']> } & {
  'supervisor/daemon': DaemonCallResult;
};

export function isSupervisorMethod(method: string): method is SupervisorMethod {
  return Object.hasOwn(supervisorMethods, method);
}

// The same table seen through a mapped type, which lets a generic method name index it.
const RESULT_TABLE: { [M in SupervisorMethod]: { result: z.ZodMiniType<SupervisorResults[M]> } } = supervisorMethods;

/** The result schema of a supervisor method, typed by the method so a parsed result needs no cast. */
export function supervisorResultSchema<M extends SupervisorMethod>(method: M): z.ZodMiniType<SupervisorResults[M]> {
  return RESULT_TABLE[method].result;
}

/**
 * Pushed to every UI. `profile` carries the whole view of a profile whenever its lifecycle state changes (and when
 * its daemon connects, so the UI can replace what it had); `daemon` relays one event of a running daemon.
 */
export const supervisorEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('profile'), profile: profileViewSchema }),
  z.object({ type: z.literal('daemon'), profile: z.string(), event: daemonEventSchema }),
  /** A frame of a tab this UI watches (`supervisor/pictures.watch`); only the UI that watches gets it. */
  z.object({ type: z.literal('picture'), profile: z.string(), picture: tabPictureSchema }),
]);
export type SupervisorEvent = z.output<typeof supervisorEventSchema>;

/** JSON-RPC notification method that carries a `SupervisorEvent` over the dashboard WebSocket. */
export const SUPERVISOR_EVENT_METHOD = 'supervisor/event';

/**
 * What the Electron preload exposes as `window.tabmux`. Values cross the context bridge as structured clones, so
 * the renderer checks their shape again; `call` resolves with an `IpcReply` envelope (see ipcReply.ts), never
 * rejects with the server's error, so the error's code survives the trip.
 */
export interface SupervisorBridge {
  call(method: SupervisorMethod, params: unknown): Promise<unknown>;
  subscribe(listener: (event: unknown) => void): () => void;
}
