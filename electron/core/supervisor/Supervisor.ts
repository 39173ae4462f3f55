import { TabmuxError } from '../../../shared/errors.js';
import { withDeadline } from '../../../shared/withDeadline.js';
import type { DaemonEvent, ProfileState } from '../../../shared/model.js';
import type { ForwardedDaemonMethod, ProfileView, SupervisorEvent, SupervisorSnapshot } from '../../../shared/supervisor.js';
import { startDaemon } from '../lifecycle/daemonProcess.js';
import { stopDaemon } from '../lifecycle/stopDaemon.js';
import { stopNote, type StopHow } from '../lifecycle/unresponsiveDaemon.js';
import { Logger } from '../platform/Logger.js';
import { pidFilePath, type TabmuxPaths } from '../platform/paths.js';
import { runningHolder } from '../process/ClaimFile.js';
import { addExternalProfile, type ExternalProfileRequest } from '../profile/addExternalProfile.js';
import { ProfileStore, validateProfileName, type ProfileConfig } from '../profile/ProfileStore.js';
import { CrashRestarts } from './CrashRestarts.js';
import { DaemonWatch } from './DaemonWatch.js';
import { pictureDaemon, PictureRelay } from './PictureRelay.js';
import { ProfileSlots } from './ProfileSlots.js';
import { profileStateOf } from './profileStateOf.js';
import { refreshDashboards } from './refreshDashboards.js';
import { SupervisorListeners } from './SupervisorListeners.js';
import { view, type Slot } from './Slot.js';
import type { RestartPolicyOptions } from './RestartPolicy.js';

export interface SupervisorOptions {
  paths: TabmuxPaths;
  /** The program that runs daemons; the tray app passes its own binary, which runs as Node with ELECTRON_RUN_AS_NODE. */
  execPath?: string;
  /** How often to look for daemons started elsewhere (the CLI, an agent's `tabmux mcp serve`). */
  pollIntervalMs?: number;
  tabsDebounceMs?: number;
  /** How long a watched daemon may leave a look unanswered before its profile says it does not answer. */
  answerWithinMs?: number;
  restart?: RestartPolicyOptions;
  /** How long a watched daemon that closed its connections may take to exit before its profile says it is slow to. */
  slowStopMs?: number;
  /** How long such a daemon may take to exit before its profile shows it stuck (and Stop ends it). */
  stuckStopMs?: number;
  logger?: Logger;
}

/** How long a scan waits for its looks at daemons; a look still going after this goes on without holding it up. */
const SCAN_WAIT_MS = 3_000;

/**
 * Knows every profile, watches every running daemon and merges their state and events into one model for a UI.
 * Daemons outlive it: disposing the supervisor leaves them running unless asked to stop them.
 */
export class Supervisor {
  readonly #paths: TabmuxPaths;
  readonly #store: ProfileStore;
  readonly #options: SupervisorOptions;
  readonly #logger: Logger;
  readonly #slots: ProfileSlots;
  readonly #listeners: SupervisorListeners;
  readonly #restarts: CrashRestarts;
  #pollTimer: ReturnType<typeof setInterval> | null = null;
  #scanning: Promise<void> | null = null;
  #disposed = false;
  /** Live pictures: each daemon captures what the UIs watch on it, and each frame goes to its watchers only. */
  readonly pictures = new PictureRelay((profile) => pictureDaemon(this.#slots.get(profile)?.watch));

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#paths = options.paths;
    this.#store = new ProfileStore(options.paths);
    this.#logger = options.logger ?? Logger.silent();
    this.#listeners = new SupervisorListeners(this.#logger);
    this.#slots = new ProfileSlots(options.restart, (slot) => this.#listeners.emit({ type: 'profile', profile: view(slot) }));
    this.#restarts = new CrashRestarts({
      paths: this.#paths,
      logger: this.#logger,
      disposed: () => this.#disposed,
      set: (slot, state, lastError) => this.#set(slot, state, lastError),
      relaunch: (slot) => void this.#launch(slot, 'restarting'),
      ...(this.#options.slowStopMs === undefined ? {} : { slowStopMs: this.#options.slowStopMs }),
      ...(this.#options.stuckStopMs === undefined ? {} : { stuckStopMs: this.#options.stuckStopMs }),
    });
  }

  /** Finds the profiles and connects to the daemons already running, then keeps looking every couple of seconds. */
  async start(): Promise<void> {
    await this.#scan();
    this.#pollTimer = setInterval(() => void this.#scan(), this.#options.pollIntervalMs ?? 2000);
    this.#pollTimer.unref();
  }

  onEvent(listener: (event: SupervisorEvent) => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Re-reads the profile list first, so profiles added with the CLI appear. */
  async snapshot(): Promise<SupervisorSnapshot> {
    await this.#scan();
    return { profiles: this.#slots.all().map(view) };
  }

  view(name: string): ProfileView {
    return view(this.#slots.of(name));
  }

  async startProfile(name: string): Promise<ProfileView> {
    const slot = await this.#knownSlot(name);
    if (slot.busy || slot.watch || slot.unanswered) {
      return view(slot);
    }
    this.#restarts.cancel(slot);
    slot.policy.reset();
    void this.#launch(slot, 'starting').then(() => (slot.kind === 'external' && slot.watch ? this.#run(slot, () => this.#connect(slot)) : undefined));
    return view(slot);
  }

  /**
   * Connect, for a browser the user runs: the daemon would connect at the first agent's call, but a person who
   * pressed Connect wants to know at once whether the browser is there. When it is not, the daemon is stopped again
   * and the profile shows why (Connect again tries anew); nothing keeps retrying behind the person's back.
   */
  async #connect(slot: Slot): Promise<void> {
    const watch = slot.watch;
    if (!watch || watch.closed) {
      return;
    }
    try {
      await watch.client.request('tabmux/browser.connect', {});
      watch.refreshStatusSoon();
    } catch (error) {
      this.#logger.info(`profile ${slot.name} did not connect: ${TabmuxError.from(error).message}`);
      await this.#stop(slot);
      throw error;
    }
  }

  async stopProfile(name: string): Promise<ProfileView> {
    const slot = await this.#knownSlot(name);
    this.#restarts.cancel(slot);
    slot.policy.reset();
    if (slot.busy && slot.state === 'stopping') {
      return view(slot);
    }
    // A daemon shown crashed may still hold the profile (one whose stop got stuck): Stop ends that one too.
    if (!slot.watch && !slot.busy && !slot.unanswered && (await runningHolder(pidFilePath(this.#paths, name)).catch(() => undefined)) === undefined) {
      this.#set(slot, 'stopped', null);
      return view(slot);
    }
    void this.#run(slot, async () => {
      this.#set(slot, 'stopping', null);
      this.#set(slot, 'stopped', stopNote(this.#paths, slot.name, await this.#stop(slot)));
    });
    return view(slot);
  }

  async restartProfile(name: string): Promise<ProfileView> {
    const slot = await this.#knownSlot(name);
    this.#restarts.cancel(slot);
    slot.policy.reset();
    void this.#run(slot, async () => {
      this.#set(slot, 'restarting', null);
      // As `tabmux daemon restart`: a Chrome tabmux launched stays, and the new daemon takes it over with the sessions.
      await this.#stop(slot, { keepBrowser: true });
      await this.#startAndWatch(slot);
    });
    return view(slot);
  }

  /** Creates a profile on a browser the user runs (see `addExternalProfile`); it connects once started. */
  async addExternalProfile(request: ExternalProfileRequest): Promise<ProfileView> {
    await addExternalProfile(this.#store, request);
    await this.#scan();
    if (!this.#slots.has(request.name)) {
      // The scan that was under way had read the list before the profile was stored.
      await this.#scan();
    }
    return view(this.#slots.of(request.name));
  }

  /** Forwards one control call to a profile's daemon on the supervisor's own connection. */
  async forward(profile: string, method: ForwardedDaemonMethod, params: unknown): Promise<unknown> {
    const slot = this.#slots.of(profile);
    const watch = slot.watch;
    if (!watch || watch.closed) {
      throw new TabmuxError('daemon_not_running', `profile ${profile} is not running (${slot.state}); start it first`);
    }
    if (slot.unanswered) {
      // It would wait for as long as the daemon stays stopped: the person is told at once instead.
      throw new TabmuxError('daemon_unresponsive', `profile ${profile}: ${slot.lastError ?? 'its daemon does not answer'}`);
    }
    try {
      return await watch.request(method, params ?? {});
    } finally {
      // Opening a tab for a human runs in the router's own lane, which pushes no event the tab list would follow.
      if (method === 'tabmux/tabs.open' || (method.startsWith('tabmux/session.') && method !== 'tabmux/session.list' && method !== 'tabmux/session.page')) {
        watch.refreshTabsSoon();
      }
    }
  }

  /**
   * A dashboard this process serves started or stopped: every daemon watched now reads the dashboards' records again
   * and answers once its browser's tabs are kept away from them, so a new dashboard is out of the agents' reach before
   * anyone has its link. Daemons started later read the records as they start, and each follows their folder too.
   * A daemon that does not answer in time (or an older one without the method) is left to that.
   */
  async announceDashboards(): Promise<void> {
    await refreshDashboards(
      this.#slots.all().flatMap((slot) => (slot.watch && !slot.watch.closed ? [slot.watch] : [])),
      this.#logger,
    );
  }

  /** Stops watching; daemons keep running unless `stopDaemons` is set (the user chose to stop them on quit). */
  async dispose(options: { stopDaemons?: boolean } = {}): Promise<void> {
    this.#disposed = true;
    if (this.#pollTimer) {
      clearInterval(this.#pollTimer);
    }
    const slots = this.#slots.all();
    for (const slot of slots) {
      this.#restarts.cancel(slot);
    }
    if (options.stopDaemons) {
      await Promise.all(slots.filter((slot) => slot.watch || slot.unanswered).map((slot) => stopDaemon(this.#paths, slot.name).catch(() => false)));
    }
    for (const slot of slots) {
      slot.watch?.close();
      slot.watch = null;
    }
    this.#listeners.clear();
  }

  async #knownSlot(name: string): Promise<Slot> {
    validateProfileName(name);
    if (!this.#slots.has(name)) {
      await this.#scan();
    }
    return this.#slots.of(name);
  }

  #scan(): Promise<void> {
    this.#scanning ??= this.#scanOnce().finally(() => {
      this.#scanning = null;
    });
    return this.#scanning;
  }

  async #scanOnce(): Promise<void> {
    let entries: { name: string; config: ProfileConfig }[] | undefined;
    try {
      entries = await this.#store.list();
    } catch (error) {
      // A broken profiles.json must not blank the UI; keep what is known and say why in the log.
      this.#logger.warn(`cannot read profiles: ${TabmuxError.from(error).message}`);
    }
    if (entries) {
      this.#slots.sync(entries);
    }
    const idle = this.#slots.all().filter((slot) => !slot.watch && !slot.busy && !slot.restartTimer);
    // A daemon that answers is watched within milliseconds; one that does not (stopped or stuck) keeps its look going
    // on alone, so no snapshot and no other profile waits on it.
    const looks = idle.filter((slot) => !slot.unanswered).map((slot) => this.#lookFor(slot));
    for (const slot of idle.filter((slot) => slot.unanswered)) {
      void this.#lookFor(slot);
    }
    await withDeadline(Promise.all(looks), SCAN_WAIT_MS, undefined);
    for (const slot of this.#slots.all()) {
      if (slot.watch && !slot.busy) {
        void this.#checkAnswers(slot, slot.watch);
      }
    }
  }

  /** Says on the profile when its daemon stops answering (a stopped or stuck process), and when it answers again. */
  async #checkAnswers(slot: Slot, watch: DaemonWatch): Promise<void> {
    if (!(await watch.answerChanged(this.#options.answerWithinMs)) || slot.watch !== watch || slot.busy || this.#disposed) {
      return;
    }
    slot.unanswered = watch.unanswered;
    this.#set(slot, watch.unanswered ? slot.state : profileStateOf(watch.status.state), watch.unanswered ? watch.unansweredError : watch.status.lastError);
  }

  /** Looks for the profile's daemon (see `#attach`), one look at a time. */
  #lookFor(slot: Slot): Promise<boolean> {
    slot.looking ??= this.#attach(slot, false).finally(() => {
      slot.looking = null;
    });
    return slot.looking;
  }

  /** Connects to the profile's daemon if one answers; returns whether it did. */
  async #attach(slot: Slot, ours: boolean): Promise<boolean> {
    if (this.#disposed) {
      return false;
    }
    const opened = await DaemonWatch.open({
      paths: this.#paths,
      profile: slot.name,
      ...(this.#options.tabsDebounceMs === undefined ? {} : { tabsDebounceMs: this.#options.tabsDebounceMs }),
      ...(this.#options.answerWithinMs === undefined ? {} : { answerWithinMs: this.#options.answerWithinMs }),
      onEvent: (event) => this.#relay(slot, watch, event),
      onStatus: () => {
        if (slot.watch === watch && watch && !this.#disposed) {
          this.#listeners.emit({ type: 'profile', profile: view(slot) });
        }
      },
      onClose: () => void this.#restarts.closed(slot, watch),
    });
    if (!(opened instanceof DaemonWatch)) {
      this.#unanswered(slot, opened?.unanswered);
      return false;
    }
    const watch = opened;
    if (this.#disposed || slot.watch) {
      watch.close();
      return slot.watch !== null;
    }
    slot.watch = watch;
    slot.unanswered = false;
    slot.ours = ours;
    slot.readyAt = Date.now();
    this.#set(slot, profileStateOf(watch.status.state), watch.status.lastError);
    void this.pictures.resync(slot.name).catch(() => undefined);
    return true;
  }

  /**
   * A look found no watchable daemon: one that holds the profile without answering (`error` says so), or none. The
   * profile says which, unless something else has it in hand meanwhile.
   */
  #unanswered(slot: Slot, error: string | undefined): void {
    if (slot.watch || slot.busy || this.#disposed || slot.unanswered === (error !== undefined)) {
      return;
    }
    slot.unanswered = error !== undefined;
    this.#set(slot, error === undefined ? 'stopped' : slot.state, error ?? null);
  }

  #relay(slot: Slot, watch: DaemonWatch | undefined, event: DaemonEvent): void {
    if (slot.watch !== watch || this.#disposed) {
      return;
    }
    if (event.type === 'picture') {
      this.pictures.deliver(slot.name, event.picture);
      return;
    }
    this.#listeners.emit({ type: 'daemon', profile: slot.name, event });
    if (event.type === 'daemon' && !slot.busy) {
      this.#set(slot, profileStateOf(event.state), event.lastError);
    }
  }

  #launch(slot: Slot, state: 'starting' | 'restarting'): Promise<void> {
    return this.#run(slot, async () => {
      this.#set(slot, state, state === 'restarting' ? slot.lastError : null);
      try {
        await this.#startAndWatch(slot);
      } catch (error) {
        this.#set(slot, 'crashed', TabmuxError.from(error).message);
        if (state === 'restarting') {
          this.#restarts.schedule(slot, null);
        }
      }
    });
  }

  async #startAndWatch(slot: Slot): Promise<void> {
    // A daemon the tray or the dashboard starts stays until it is stopped, as one `tabmux daemon start` starts does.
    const { started } = await startDaemon(this.#paths, slot.name, this.#options.execPath === undefined ? { startedBy: 'app' } : { execPath: this.#options.execPath, startedBy: 'app' });
    if (!(await this.#attach(slot, started))) {
      throw new TabmuxError('daemon_not_running', `the daemon for profile ${slot.name} started but stopped answering; see its log`);
    }
  }

  /** Stops the profile's daemon; says how it went (see StopHow), undefined when none was running. */
  async #stop(slot: Slot, options: { keepBrowser?: boolean } = {}): Promise<StopHow | undefined> {
    const watch = slot.watch;
    slot.watch = null;
    const helloTimeoutMs = this.#options.answerWithinMs;
    const how = await stopDaemon(this.#paths, slot.name, undefined, helloTimeoutMs === undefined ? options : { ...options, helloTimeoutMs });
    slot.unanswered = false;
    watch?.close();
    return how;
  }

  /** Runs one lifecycle operation for a profile; errors end up in the profile's state, never as a rejection. */
  async #run(slot: Slot, operation: () => Promise<void>): Promise<void> {
    slot.busy = true;
    try {
      await operation();
    } catch (error) {
      this.#set(slot, 'crashed', TabmuxError.from(error).message);
    } finally {
      slot.busy = false;
    }
  }

  #set(slot: Slot, state: ProfileState, lastError: string | null): void {
    slot.state = state;
    slot.lastError = lastError;
    if (!this.#disposed) {
      this.#listeners.emit({ type: 'profile', profile: view(slot) });
    }
  }
}
