import { useMemo } from 'react';
import type { ProfileEntry } from '../state/ServerState.js';
import { actionKey } from '../state/actionKey.js';
import { profileBadge, profileVerbs } from '../state/profileStatus.js';
import { ActionButton } from './ActionButton.js';
import { KindTag } from './KindTag.js';
import { StateBadge } from './StateBadge.js';
import { useActions, useTabmux } from './TabmuxContext.js';

export function ProfileItem(props: { profile: ProfileEntry; selected: boolean }) {
  const { profile } = props;
  const actions = useActions();
  const selectProfile = useTabmux((state) => state.selectProfile);
  const sessionCount = useTabmux((state) => Object.keys(state.sessions[profile.name] ?? {}).length);
  const badge = useMemo(() => profileBadge(profile), [profile]);
  const verbs = profileVerbs(profile);
  // A daemon that does not answer still runs: Stop is what ends it.
  const running = profile.unanswered || (profile.state !== 'stopped' && profile.state !== 'crashed');
  // Test ids name the control by what it does, so a spec reads "connect", not "start", for an external profile.
  const external = profile.kind === 'external';

  return (
    <li
      className={`profile-item${props.selected ? ' is-selected' : ''}`}
      data-testid={`profile-item-${profile.name}`}
      data-state={profile.state}
      data-kind={profile.kind}
    >
      <button
        type="button"
        className="profile-select"
        onClick={() => selectProfile(profile.name)}
        aria-current={props.selected ? 'page' : undefined}
        data-testid={`profile-select-${profile.name}`}
      >
        <span className="profile-name-row">
          <span className="profile-name">{profile.name}</span>
          <KindTag kind={profile.kind} testId={`profile-kind-${profile.name}`} />
        </span>
        {profile.endpoint !== null && (
          <span className="profile-endpoint" data-testid={`profile-endpoint-${profile.name}`} title={profile.endpoint}>
            {profile.endpoint}
          </span>
        )}
        <span className="profile-meta">
          <StateBadge badge={badge} testId={`profile-state-${profile.name}`} />
          {profile.state === 'ready' && (
            <span className="muted small">
              {sessionCount} {sessionCount === 1 ? 'session' : 'sessions'}
            </span>
          )}
        </span>
      </button>
      {running ? (
        <ActionButton
          pendingKey={actionKey('profile', profile.name, 'stop')}
          busyLabel={verbs.stopping}
          testId={`profile-${external ? 'disconnect' : 'stop'}-${profile.name}`}
          onRun={() => actions.stopProfile(profile.name)}
          disabled={profile.state === 'stopping'}
          title={verbs.stopTitle}
          confirmLabel={verbs.stopConfirm}
        >
          {verbs.stop}
        </ActionButton>
      ) : (
        <ActionButton
          pendingKey={actionKey('profile', profile.name, 'start')}
          busyLabel={verbs.starting}
          testId={`profile-${external ? 'connect' : 'start'}-${profile.name}`}
          onRun={() => actions.startProfile(profile.name)}
          title={verbs.startTitle}
        >
          {verbs.start}
        </ActionButton>
      )}
    </li>
  );
}
