import { promises as fs } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod/mini';
import '../../../shared/zodMessages.js';
import { TabmuxError } from '../../../shared/errors.js';
import { policyRuleSchema } from '../../../shared/policy.js';
import { isBrowserUrl, isWsEndpoint } from './browserUrl.js';
import { profilesConfigFile, type TabmuxPaths } from '../platform/paths.js';
import { isNodeError } from '../platform/secureFs.js';
import { DEFAULT_PROFILE, validateProfileName } from './validateProfileName.js';

// The name rules live apart from the store, so code that only checks a name does not load the config schemas.
export { DEFAULT_PROFILE, validateProfileName } from './validateProfileName.js';

const positiveInt = z.int().check(z.positive());

export const profileConfigSchema = z.lazy(() => z.object({
  chrome: z.optional(z.string()),
  /** An external browser reached by HTTP discovery; tabmux connects to it instead of launching Chrome. */
  browserUrl: z.optional(z.string().check(z.refine(isBrowserUrl, { message: 'browserUrl must be an http(s) URL' }))),
  /** An external browser's browser-level WebSocket (a remote engine); `${VAR}` references are read at connect time. */
  wsEndpoint: z.optional(z.string().check(z.refine(isWsEndpoint, { message: 'wsEndpoint must be a ws(s) URL' }))),
  /** Headers for the WebSocket handshake (auth); values may be `${VAR}` references. */
  wsHeaders: z.optional(z.record(z.string(), z.string())),
  /** Run through /bin/sh when the external browser cannot be reached and a call needs it. */
  startCommand: z.optional(z.string().check(z.minLength(1))),
  headless: z.optional(z.boolean()),
  chromeArgs: z.optional(z.array(z.string())),
  workers: z.optional(z.int().check(z.minimum(1), z.maximum(16))),
  /** `window`: each session's pages open in a window of its own. */
  isolation: z.optional(z.enum(['tab', 'window'])),
  sessionTtlMs: z.optional(positiveInt),
  reapIntervalMs: z.optional(positiveInt),
  callTimeoutMs: z.optional(positiveInt),
  /** How long an agent's ask_human waits for a person's answer before it fails. */
  questionTimeoutMs: z.optional(positiveInt),
  /** How long a call a confirm policy holds waits for approval before it is denied. */
  confirmTimeoutMs: z.optional(positiveInt),
  /** How long a call waits on a page that answers nothing before the script holding it is ended; 0: never. */
  stuckPageMs: z.optional(z.int().check(z.minimum(0))),
  /** An upstream worker's memory in MiB past which its sessions move apart and it is replaced; 0: never. */
  workerMemoryMb: z.optional(z.int().check(z.minimum(0))),
  /** The most bytes one session's folder may hold before file-writing tools are refused; 0: no limit. */
  sessionFilesMaxBytes: z.optional(z.int().check(z.minimum(0))),
  /** Rules for agents' calls on this profile (tabmux policy add); a running daemon applies them at once. */
  policies: z.optional(z.array(policyRuleSchema)),
  workerIdleMs: z.optional(positiveInt),
  /** How long a launched Chrome outlives a daemon that died, for the next daemon to adopt it; 0 closes it at once. */
  orphanGraceMs: z.optional(z.int().check(z.minimum(0))),
  /** How long a daemon started on demand waits with no session and no client before it exits; 0 keeps it. */
  idleExitMs: z.optional(z.int().check(z.minimum(0))),
  toolTimeoutsMs: z.optional(z.record(z.string(), positiveInt)),
  /** Downloads: kept in each session's folder (`session`, the default) or refused (`off`). */
  downloads: z.optional(z.enum(['session', 'off'])),
  /** The largest file one download may write, in bytes. */
  downloadMaxBytes: z.optional(positiveInt),
  /** The most bytes, and files, one session's downloads may keep. */
  downloadSessionMaxBytes: z.optional(positiveInt),
  downloadSessionMaxFiles: z.optional(positiveInt),
  /** The activity log: on unless false. */
  activityLog: z.optional(z.boolean()),
  /** Keep typed values and header values in the activity log in clear (redacted by default). */
  logValues: z.optional(z.boolean()),
  logMaxBytes: z.optional(positiveInt),
  logMaxAgeMs: z.optional(positiveInt),
  /** Caps on live pictures (see PictureLimits): frames a second and largest size, per picture size; tabs at once. */
  pictures: z.optional(
    z.partial(
      z.object({
        thumbFps: z.number().check(z.minimum(0.1), z.maximum(30)),
        liveFps: z.number().check(z.minimum(0.1), z.maximum(30)),
        liveMaxWidth: z.int().check(z.minimum(160), z.maximum(3840)),
        liveMaxHeight: z.int().check(z.minimum(120), z.maximum(2160)),
        maxTabs: z.int().check(z.minimum(1), z.maximum(64)),
      }),
    ),
  ),
  createdAt: z.optional(z.number()),
}));

export type ProfileConfig = z.infer<typeof profileConfigSchema>;

const fileSchema = z.lazy(() => z.object({ version: z.literal(1), profiles: z.record(z.string(), profileConfigSchema) }));

export interface ProfileEntry {
  name: string;
  config: ProfileConfig;
}

/** Named profiles, persisted in `profiles.json`. The `default` profile exists without any set-up. */
export class ProfileStore {
  readonly #file: string;

  constructor(paths: TabmuxPaths) {
    this.#file = profilesConfigFile(paths);
  }

  async list(): Promise<ProfileEntry[]> {
    const profiles = await this.#read();
    if (!profiles[DEFAULT_PROFILE]) {
      profiles[DEFAULT_PROFILE] = {};
    }
    return Object.entries(profiles)
      .map(([name, config]) => ({ name, config }))
      .sort((a, b) => (a.name === DEFAULT_PROFILE ? -1 : b.name === DEFAULT_PROFILE ? 1 : a.name.localeCompare(b.name)));
  }

  async get(name: string): Promise<ProfileEntry> {
    validateProfileName(name);
    const profiles = await this.#read();
    const config = profiles[name];
    if (config) {
      return { name, config };
    }
    if (name === DEFAULT_PROFILE) {
      return { name, config: {} };
    }
    throw new TabmuxError('invalid_profile', `profile ${name} does not exist; create it with: tabmux profile add ${name} (tabmux profile list shows the profiles)`);
  }

  async add(name: string, config: ProfileConfig): Promise<ProfileEntry> {
    validateProfileName(name);
    const profiles = await this.#read();
    if (profiles[name]) {
      throw new TabmuxError('profile_exists', `profile ${JSON.stringify(name)} already exists; remove it first or pick another name`);
    }
    profiles[name] = { ...config, createdAt: Date.now() };
    await this.#write(profiles);
    return { name, config: profiles[name] };
  }

  /** Changes one profile's config (the `default` profile gets an entry of its own the first time). */
  async update(name: string, change: (config: ProfileConfig) => ProfileConfig): Promise<ProfileEntry> {
    validateProfileName(name);
    const profiles = await this.#read();
    const config = profiles[name] ?? (name === DEFAULT_PROFILE ? {} : undefined);
    if (!config) {
      throw new TabmuxError('invalid_profile', `profile ${name} does not exist; create it with: tabmux profile add ${name} (tabmux profile list shows the profiles)`);
    }
    profiles[name] = change(config);
    await this.#write(profiles);
    return { name, config: profiles[name] };
  }

  /** Forgets a profile; the `default` profile, which always exists, goes back to its settings from no set-up. */
  async remove(name: string): Promise<void> {
    validateProfileName(name);
    const profiles = await this.#read();
    if (!profiles[name]) {
      if (name === DEFAULT_PROFILE) {
        return;
      }
      throw new TabmuxError('invalid_profile', `no profile named ${JSON.stringify(name)}`);
    }
    await this.#write(Object.fromEntries(Object.entries(profiles).filter(([key]) => key !== name)));
  }

  async #read(): Promise<Record<string, ProfileConfig>> {
    let text: string;
    try {
      text = await fs.readFile(this.#file, 'utf8');
    } catch (error) {
      if (isNodeError(error) && error.code === 'ENOENT') {
        return {};
      }
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new TabmuxError('invalid_profile', `${this.#file} is not valid JSON; fix or remove it`, { cause: error });
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) {
      throw new TabmuxError('invalid_profile', `${this.#file} is malformed: ${parsed.error.issues[0]?.message ?? 'unknown'}; fix or remove it`);
    }
    for (const name of Object.keys(parsed.data.profiles)) {
      validateProfileName(name);
    }
    return parsed.data.profiles;
  }

  async #write(profiles: Record<string, ProfileConfig>): Promise<void> {
    await fs.mkdir(dirname(this.#file), { recursive: true, mode: 0o700 });
    const tmp = `${this.#file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, `${JSON.stringify({ version: 1, profiles }, null, 2)}\n`, { mode: 0o600 });
    await fs.rename(tmp, this.#file);
  }
}
