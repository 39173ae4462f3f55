import type { ProfileView } from '../../../shared/supervisor.js';
import { externalEndpointOf } from '../browser/browserForProfile.js';
import { describeEndpoint } from '../browser/externalEndpoint.js';
import type { ProfileConfig } from '../profile/ProfileStore.js';

/** Which browser a profile's config names, as a UI shows it before any daemon runs (credentials hidden). */
export type ProfileSource = Pick<ProfileView, 'kind' | 'endpoint'>;

export function profileSource(config: ProfileConfig): ProfileSource {
  const endpoint = externalEndpointOf(config);
  return endpoint === undefined ? { kind: 'launched', endpoint: null } : { kind: 'external', endpoint: describeEndpoint(endpoint) };
}
