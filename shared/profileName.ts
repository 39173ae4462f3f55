/** Profile names become file and socket names, so only a safe alphabet is allowed (no path tricks). */
export const PROFILE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export const PROFILE_NAME_RULE = "1-40 lowercase letters, digits, '-' or '_', starting with a letter or digit";
