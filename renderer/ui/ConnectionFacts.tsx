import { useMemo } from 'react';
import { formatDuration } from '../format/formatDuration.js';
import type { ProfileEntry } from '../state/ServerState.js';
import { externalConnectionFacts, profileBadge } from '../state/profileStatus.js';
import { Fact } from './Fact.js';
import { useNow } from './useNow.js';

/** An external profile's connection: where the browser is, how it is going, and why not when it is not. */
export function ConnectionFacts(props: { profile: ProfileEntry }) {
  const { profile } = props;
  const now = useNow(1000);
  const facts = externalConnectionFacts(profile, now);
  const badge = useMemo(() => profileBadge(profile), [profile]);
  if (!facts) {
    return null;
  }
  const retry = facts.retryInMs === null ? '—' : facts.retryInMs === 0 ? 'now' : `in ${formatDuration(facts.retryInMs)}`;
  return (
    <div className="connection" data-testid="connection-facts" data-state={badge.state}>
      <dl className="facts">
        <Fact label="Browser URL" value={facts.endpoint} testId="fact-endpoint" title="Credentials in the URL are never shown" />
        <Fact label="Connection" value={badge.label} testId="fact-connection" title={badge.title} />
        {profile.daemon && <Fact label="Failed attempts" value={String(facts.attempts)} testId="fact-attempts" />}
        {profile.daemon && <Fact label="Next retry" value={retry} testId="fact-next-retry" />}
      </dl>
      {facts.lastError && (
        <p className={`notice ${badge.tone === 'error' ? 'notice-error' : 'notice-warn'}`} data-testid="connection-error">
          {facts.lastError}
        </p>
      )}
    </div>
  );
}
