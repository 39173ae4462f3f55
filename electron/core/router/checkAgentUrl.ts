import { TabmuxError } from '../../../shared/errors.js';
import type { UrlPolicy } from '../browser/urlPolicy.js';

/**
 * Agents' own navigations to the browser's control surface are refused before anything reaches the browser: the same
 * answer the browser gives a session's tabs (see ControlSurfaceGuard), told as an error. `folderOf` gives the session's
 * own folder, the one place its `file:` URLs reach.
 */
export function checkAgentUrl(policy: UrlPolicy | undefined, folderOf: () => string, tool: string, args: Record<string, unknown>): void {
  const url = args['url'];
  if ((tool !== 'navigate_page' && tool !== 'new_page') || typeof url !== 'string') {
    return;
  }
  const folder = folderOf();
  const refusal = policy?.navigationRefusal(url, { kind: 'session', folder });
  if (refusal !== undefined) {
    const files = policy?.readsFile(url) === true ? `; file: URLs reach only your session folder ${folder}` : '';
    throw new TabmuxError('url_denied', `${url} is out of reach for agents (${refusal}); tabmux keeps the browser's own endpoints, pages and files away from tabs${files}`);
  }
}
