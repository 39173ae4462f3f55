import { TabmuxError } from '../../../shared/errors.js';
import { validateBrowserUrl } from './browserUrl.js';
import { validateProfileName, type ProfileConfig, type ProfileEntry, type ProfileStore } from './ProfileStore.js';

export interface ExternalProfileRequest {
  name: string;
  /** HTTP discovery URL of a browser the user started with `--remote-debugging-port`. */
  browserUrl: string;
  /** `tab` (the default) or `window` (a window per session). */
  isolation?: string | undefined;
}

/**
 * Creates a profile that connects to a browser the user runs, with the checks and the store that
 * `tabmux profile add NAME --browser-url URL [--isolation tab|window]` uses, so the UI and the CLI refuse the same
 * input with the same messages. The name is checked first: it is the field a user fixes most often.
 */
export async function addExternalProfile(store: ProfileStore, request: ExternalProfileRequest): Promise<ProfileEntry> {
  validateProfileName(request.name);
  const config: ProfileConfig = { browserUrl: validateBrowserUrl(request.browserUrl) };
  if (request.isolation !== undefined) {
    config.isolation = validateIsolation(request.isolation);
  }
  return store.add(request.name, config);
}

export function validateIsolation(value: string): NonNullable<ProfileConfig['isolation']> {
  if (value !== 'tab' && value !== 'window') {
    throw new TabmuxError('invalid_params', '--isolation must be tab (the default) or window (a window per session)');
  }
  return value;
}
