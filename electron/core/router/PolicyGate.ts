import { TabmuxError } from '../../../shared/errors.js';
import type { TabUrl } from './CallWatch.js';
import type { HumanRequests } from './HumanRequests.js';
import type { PolicySet } from './PolicySet.js';
import { DEFAULT_SETTINGS } from './RouterSettings.js';
import type { Session } from './Session.js';

export interface PolicyGateOptions {
  humans: HumanRequests;
  /** How long a call a confirm rule holds waits for a person's approval. */
  confirmTimeoutMs?: number | undefined;
  /** Arguments as a person sees them while a call waits for approval; without it, only their names are shown. */
  redact?: ((tool: string, args: Record<string, unknown>) => Record<string, unknown>) | undefined;
  /** The URL the browser reports for a tab. */
  tabUrl?: TabUrl | undefined;
}

/** Who is asking, so that a question a vanished client left behind goes with it. */
export interface PolicyCaller {
  owner?: string | undefined;
  onQueued?: ((callId: number) => void) | undefined;
}

const RULES = 'The person who runs this browser sets these rules (tabmux policy list); ask_human if you need this done.';

/**
 * The profile's policies applied to an agent's call, before it takes a place in the queue: a deny (or a call outside
 * every allow rule) throws; a confirm waits for a person, holding up nobody else, and throws if they deny it or
 * nobody decides in time. A call is judged by a URL from the browser or the call's own target, never by page text.
 */
export class PolicyGate {
  readonly #options: PolicyGateOptions;

  constructor(options: PolicyGateOptions) {
    this.#options = options;
  }

  /** Returns a note for the result of a call a person approved; undefined when no rule applies. */
  async check(session: Session, policies: PolicySet, name: string, args: Record<string, unknown>, caller: PolicyCaller): Promise<string | undefined> {
    const url = this.#policyUrl(session, name, args);
    const decision = policies.check(name, url);
    if (!decision) {
      return undefined;
    }
    if (decision.action === 'deny') {
      throw new TabmuxError('policy_denied', `${decision.message}. ${RULES}`);
    }
    const timeoutMs = this.#options.confirmTimeoutMs ?? DEFAULT_SETTINGS.confirmTimeoutMs;
    const redacted = this.#options.redact?.(name, args) ?? Object.fromEntries(Object.keys(args).map((key) => [key, '…']));
    const tabId = session.currentPage?.tabId ?? undefined;
    const answer = await this.#options.humans
      .ask(
        {
          kind: 'confirm',
          sessionId: session.id,
          label: session.label,
          tool: name,
          url,
          question: `Allow ${name} on ${url}?`,
          choices: [],
          arguments: redacted,
          policy: decision.rule.id,
          ...(tabId === undefined ? {} : { tabId }),
        },
        timeoutMs,
        caller.owner,
        `${name} on ${url} waited for a person's approval (policy ${decision.rule.id}) for ${Math.round(timeoutMs / 1000)} s and nobody gave it, so it was not run. ${RULES}`,
        caller.onQueued,
      )
      .catch((error: unknown) => {
        const failure = TabmuxError.from(error);
        throw failure.code === 'timeout' ? new TabmuxError('policy_denied', failure.message) : failure;
      });
    session.lastUsedAt = Date.now();
    if (answer.approved !== true) {
      throw new TabmuxError('policy_denied', `a person denied ${name} on ${url} (policy ${decision.rule.id}) from the ${answer.by}${answer.text ? `: ${answer.text}` : ''}. Do not try it another way; ask_human if you need to know more.`);
    }
    return `Note: a person approved this call (policy ${decision.rule.id}) from the ${answer.by}.`;
  }

  /**
   * The URL a call is judged by: the target of a navigation or a new page, else the session's current tab as the
   * browser reports it (the router's own record of the page when the browser has not said). Never page text.
   */
  #policyUrl(session: Session, name: string, args: Record<string, unknown>): string {
    const target = args['url'];
    if (name === 'new_page') {
      return typeof target === 'string' ? target : 'about:blank';
    }
    if (name === 'navigate_page' && typeof target === 'string' && (args['type'] === undefined || args['type'] === 'url')) {
      return target;
    }
    const page = session.currentPage;
    if (!page) {
      return 'about:blank';
    }
    return (page.tabId === null ? undefined : this.#options.tabUrl?.(page.tabId)) ?? (page.url || 'about:blank');
  }
}
