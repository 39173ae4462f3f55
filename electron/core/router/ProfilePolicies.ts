import { TabmuxError } from '../../../shared/errors.js';
import type { PolicyRule } from '../../../shared/policy.js';
import type { Logger } from '../platform/Logger.js';
import type { ChangeFeed } from './ChangeFeed.js';
import { compilePattern, PolicySet } from './PolicySet.js';

/**
 * The profile's policy rules as the router holds them: replaced as a whole whenever the profile's config changes,
 * and in force for every session from its next call on. Subscribers hear of each new set.
 */
export class ProfilePolicies {
  #current = PolicySet.EMPTY;

  constructor(private readonly options: { profile: string; logger: Logger; feed: ChangeFeed }) {}

  /** The rules in force now, compiled (what `AgentTools` checks each call against). */
  get current(): PolicySet {
    return this.#current;
  }

  /**
   * Puts `rules` in force and returns those kept. A rule whose pattern does not compile (a config edited by hand;
   * tabmux policy add checks them) is left out, and the daemon log says so.
   */
  replace(rules: readonly PolicyRule[]): PolicyRule[] {
    const { profile, logger, feed } = this.options;
    const valid = rules.filter((rule) => {
      try {
        compilePattern(rule.url);
        return true;
      } catch (error) {
        logger.warn(`policy ${rule.id} left out: ${TabmuxError.from(error).message}`);
        return false;
      }
    });
    this.#current = new PolicySet(valid);
    logger.info(`policies: ${valid.length} rule(s)`);
    feed.emit({ type: 'policies', profile, policies: [...valid] });
    return valid;
  }

  rules(): PolicyRule[] {
    return [...this.#current.rules];
  }
}
