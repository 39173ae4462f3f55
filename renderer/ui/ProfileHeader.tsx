import { useMemo } from 'react';
import type { ProfileEntry } from '../state/ServerState.js';
import { actionKey } from '../state/actionKey.js';
import { formatRelativeTime } from '../format/formatRelativeTime.js';
import { lifetimeFact, profileBadge, profileVerbs } from '../state/profileStatus.js';
import { ActionButton } from './ActionButton.js';
import { ConnectionFacts } from './ConnectionFacts.js';
import { Fact } from './Fact.js';
import { KindTag } from './KindTag.js';
import { StateBadge } from './StateBadge.js';
import { useActions, useTabmux } from './TabmuxContext.js';
import { useNow } from './useNow.js';

const show = (value: number | null): string => (value === null ? '—' : String(value));

export function ProfileHeader(props: { profile: ProfileEntry }) {
  const { profile } = props;
  const { daemon, workers } = profile;
  const actions = useActions();
  const debug = useTabmux((state) => state.debug);
  const setDebug = useTabmux((state) => state.setDebug);
  const now = useNow(30_000);
  const badge = useMemo(() => profileBadge(profile), [profile]);
  const verbs = profileVerbs(profile);
  const external = profile.kind === 'external';
  const readyWorkers = workers.filter((worker) => worker.state === 'ready').length;
  const stops = lifetimeFact(daemon?.lifetime);

  return (
    <header className="profile-header" data-testid="profile-header">
      <div className="profile-title">
        <h1>{profile.name}</h1>
        <KindTag kind={profile.kind} testId="profile-header-kind" />
        <StateBadge badge={badge} testId="profile-header-state" />
        {daemon && daemon.state !== 'ready' && !external && (
          <span className="muted small" data-testid="daemon-state">
            daemon {daemon.state}
          </span>
        )}
        <div className="spacer" />
        <label className="toggle" title="Show each worker's upstream selected page next to the sessions' pages">
          <input type="checkbox" checked={debug} onChange={(event) => setDebug(event.target.checked)} data-testid="debug-toggle" />
          Debug
        </label>
        {daemon && (
          <ActionButton
            pendingKey={actionKey('profile', profile.name, 'restart')}
            busyLabel={verbs.restarting}
            testId="profile-restart"
            onRun={() => actions.restartProfile(profile.name)}
            title={verbs.restartTitle}
            confirmLabel={verbs.restartConfirm}
          >
            {verbs.restart}
          </ActionButton>
        )}
      </div>
      {external && <ConnectionFacts profile={profile} />}
      {daemon && (
        <dl className="facts">
          {!external && (
            <>
              <Fact label="Chrome pid" value={show(daemon.chrome.pid)} testId="fact-chrome-pid" title={daemon.chrome.executable ?? undefined} />
              <Fact label="Port" value={show(daemon.chrome.port)} testId="fact-chrome-port" title={daemon.chrome.browserUrl ?? undefined} />
              <Fact label="Mode" value={daemon.chrome.headless === null ? '-' : daemon.chrome.headless ? 'headless' : 'headed'} testId="fact-headless" />
            </>
          )}
          <Fact label="Workers" value={`${readyWorkers}/${workers.length} ready`} testId="fact-workers" />
          <Fact label="Upstream pid" value={show(daemon.upstream.pid)} testId="fact-upstream-pid" />
          <Fact label="Daemon pid" value={String(daemon.pid)} testId="fact-daemon-pid" title={daemon.socketPath} />
          <Fact label="Started" value={formatRelativeTime(daemon.startedAt, now)} testId="fact-started" />
          {stops && <Fact label="Stops" value={stops.value} testId="fact-stops" title={stops.title} />}
          <Fact label="Version" value={daemon.version} testId="fact-version" />
        </dl>
      )}
      {profile.unanswered && daemon && (
        <p className="notice notice-error" data-testid="profile-unanswered-note">
          {profile.lastError}. What this page shows is from before it stopped answering.
        </p>
      )}
      {daemon?.lastError && !external && (
        <p className="notice notice-warn" data-testid="daemon-error">
          {daemon.lastError}
        </p>
      )}
      {typeof daemon?.browserSilentSince === 'number' && (
        <p className="notice notice-error" data-testid="browser-silent-note">
          The browser is not answering (it stopped at {new Date(daemon.browserSilentSince).toLocaleTimeString()}): every call on this profile waits on
          it. A page keeping Chrome busy without a break, a paused Chrome or an overloaded machine can do this. If it does not come back, Stop
          closes Chrome with the profile&apos;s sessions and tabs (logins stay).
        </p>
      )}
      {daemon?.activityLog?.error && (
        <p className="notice notice-warn" data-testid="activity-log-error">
          Activity log: {daemon.activityLog.error} ({daemon.activityLog.pending} entries waiting to be written
          {daemon.activityLog.dropped > 0 ? `, ${daemon.activityLog.dropped} lost` : ''})
        </p>
      )}
    </header>
  );
}
