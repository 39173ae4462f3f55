import { TabmuxError } from '../../../shared/errors.js';
import { PROFILE_NAME_PATTERN, PROFILE_NAME_RULE } from '../../../shared/profileName.js';

export const DEFAULT_PROFILE = 'default';

/** Profile names become file and socket names, so only a safe alphabet is allowed (no path tricks). */
export function validateProfileName(name: string): string {
  if (!PROFILE_NAME_PATTERN.test(name)) {
    throw new TabmuxError('invalid_profile', `invalid profile name ${JSON.stringify(name)}: use ${PROFILE_NAME_RULE}`);
  }
  return name;
}
