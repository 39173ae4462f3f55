import { TabmuxError } from '../../../shared/errors.js';
import type { BrowserEndpoint, ProfileBrowser } from '../browser/ProfileBrowser.js';
import type { Logger } from '../platform/Logger.js';
import { profileFilesDir, profileTempDir, type TabmuxPaths } from '../platform/paths.js';
import { PreparedUpstream, UpstreamClient } from '../upstream/UpstreamClient.js';

export interface UpstreamStarterOptions {
  paths: TabmuxPaths;
  profile: string;
  logger: Logger;
  browser: ProfileBrowser;
}

/**
 * Starts the profile's upstream workers against its browser: the first one may begin loading before the browser is
 * up (see `prepareFirst`), and each start brings the browser up, or reconnects it, first.
 */
export class UpstreamStarter {
  readonly #options: UpstreamStarterOptions;
  /** The first worker, loading while a launched Chrome starts, until the router takes it. */
  #prepared: PreparedUpstream | undefined;

  constructor(options: UpstreamStarterOptions) {
    this.#options = options;
  }

  /** Begins loading the first worker now; its start (`start(0)`) takes it over. */
  prepareFirst(): void {
    this.#prepared = PreparedUpstream.start({ tempDir: this.#tempDir(0) }, this.#options.logger.child('upstream0'));
  }

  /** A worker (re)starts: the browser is brought up or reconnected first when it can be, else this fails fast. */
  async start(index: number): Promise<UpstreamClient> {
    const prepared = index === 0 ? this.#prepared : undefined;
    if (prepared) {
      this.#prepared = undefined;
    }
    const { paths, profile, logger, browser } = this.#options;
    let endpoint: BrowserEndpoint;
    try {
      endpoint = await browser.ensure();
    } catch (error) {
      await prepared?.close();
      throw error;
    }
    const workerLogger = logger.child(`upstream${index}`);
    const upstream = await UpstreamClient.start({ endpoint, logger: workerLogger, workspace: profileFilesDir(paths, profile), tempDir: this.#tempDir(index) }, prepared);
    if (browser.kind === 'launched') {
      // Upstream connects to the browser on its first call. Make one now, answered to nobody, so that the connection
      // is made while the first agent is still on its way. (A browser the user runs is touched only when needed.)
      upstream.callTool('list_pages', {}).catch((error: unknown) => workerLogger.debug(`first connection to the browser: ${TabmuxError.from(error).message}`));
    }
    return upstream;
  }

  /** Closes the first worker if nothing took it (a daemon that stops before its router started). */
  async close(): Promise<void> {
    await this.#prepared?.close();
  }

  #tempDir(index: number): string {
    return `${profileTempDir(this.#options.paths, this.#options.profile)}/worker-${index}`;
  }
}
