import type { ProfileView } from '../../../shared/supervisor.js';
import { redactUrl } from '../browserUrl.js';
import type { ProfileConfig } from '../ProfileStore.js';

/** Which browser a profile's config names, as a UI shows it before any daemon runs. */
export type ProfileSource = Pick<ProfileView, 'kind' | 'endpoint'>;

export function profileSource(config: ProfileConfig): ProfileSource {
  return config.browserUrl === undefined ? { kind: 'launched', endpoint: null } : { kind: 'external', endpoint: redactUrl(config.browserUrl) };
}
