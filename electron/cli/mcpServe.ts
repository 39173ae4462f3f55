import { TabmuxError } from '../../shared/errors.js';
import { SESSION_ID_PATTERN } from '../../shared/sessionId.js';
import { validateProfileName } from '../core/profile/validateProfileName.js';
import { boolOption, stringOption, type Command, type CommandContext } from './Command.js';
import { labelOption, startOptions } from './sessionOptions.js';

export const mcpServe: Command = {
  words: ['mcp', 'serve'],
  usage: 'tabmux mcp serve [--profile NAME]... [--session ID] [--label TEXT] [--session-arg] [--chrome PATH] [--headless]',
  summary:
    "MCP server on stdio for an agent: its own session and tab in the profile's shared Chrome (starts the daemon if needed); " +
    'with several --profile, every tool takes a browser argument naming one',
  options: {
    // Repeatable here only: several profiles behind one server.
    profile: { type: 'string', short: 'p', multiple: true },
    session: { type: 'string', short: 's' },
    label: { type: 'string' },
    'session-arg': { type: 'boolean' },
    chrome: { type: 'string' },
    headless: { type: 'boolean' },
  },
  optionHelp: {
    profile: { text: 'a profile to serve; give it several times for one server over several browsers (each tool then takes a browser argument)', value: 'NAME', default: '"default"' },
    session: { text: 'bind this existing session instead of creating one (one profile only)', value: 'ID', default: 'a new session, closed when the client leaves' },
    label: { text: "the label of the session the server creates", value: 'TEXT', default: "the MCP client's name from initialize" },
    'session-arg': { text: 'route each call by its session_id argument (several agent sessions on one connection) instead of one bound session' },
  },
  examples: ['tabmux mcp serve', 'tabmux mcp serve --profile work --label claude', 'tabmux mcp serve --profile default --profile work', 'npx @modelcontextprotocol/inspector tabmux mcp serve'],
  run: (context) => {
    const profiles = servedProfiles(context);
    const session = stringOption(context.values, 'session');
    if (session !== undefined && profiles.length > 1) {
      throw new TabmuxError('invalid_params', '--session names a session in one profile; with several --profile, leave it out and each profile gets a new session');
    }
    if (session !== undefined && !SESSION_ID_PATTERN.test(session)) {
      throw new TabmuxError('invalid_params', `--session must be a session id like sess-0123456789abcdef (see tabmux session list), got ${session}`);
    }
    const label = labelOption(context.values);
    const sessionArg = boolOption(context.values, 'session-arg');
    return context.entryPoints.runBridge({ paths: context.paths, profiles, session, label, sessionArg, start: startOptions(context.values) });
  },
};

/** The --profile values in the order given, or the global default profile when there are none. */
function servedProfiles(context: CommandContext): string[] {
  const given = context.values['profile'];
  const names = Array.isArray(given) ? given.filter((value) => typeof value === 'string').map(validateProfileName) : [context.profile];
  const unique = [...new Set(names)];
  if (unique.length !== names.length) {
    throw new TabmuxError('invalid_params', `--profile was given the same profile twice (${names.join(', ')}); name each browser once`);
  }
  return unique.length === 0 ? [context.profile] : unique;
}
