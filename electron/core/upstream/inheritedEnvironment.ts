/** The variables a spawned MCP server inherits by default, as the MCP SDK's stdio transport chooses them (after sudo's). */
const INHERITED = process.platform === 'win32'
  ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
  : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/** Those variables from this process's environment; shell functions (values starting with `()`) are left out. */
export function inheritedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith('()')) {
      env[key] = value;
    }
  }
  return env;
}
