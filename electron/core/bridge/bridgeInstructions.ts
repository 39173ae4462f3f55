/** The `instructions` of `tabmux mcp serve`: what an agent must know to use a shared profile well. */
export const BRIDGE_INSTRUCTIONS = {
  base:
    'Browser tools for a shared, logged-in Chrome profile. Your tab(s) are private: other agents using the same ' +
    'profile cannot see or touch them, and you cannot see theirs. Element uids in snapshots are session tokens; ' +
    'after a "stale uid token" error, call take_snapshot again and use the new uids. A person watches: when you meet a ' +
    'login, a CAPTCHA, a payment or a choice you should not make alone, call ask_human and wait for the answer.',
  sessionArg:
    ' Pass the same session_id (any string you choose) on every call to keep working in the same tab; a new ' +
    'session_id starts a new session with its own tab, and close_session ends one.',
  severalBrowsers:
    ' This server serves several browsers, each its own Chrome profile with its own logins: every tool needs a ' +
    'browser argument naming one, and list_browsers lists them.',
} as const;
