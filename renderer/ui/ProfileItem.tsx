import type { ProfileEntry } from '../state/ServerState.js';
import { actionKey } from '../state/actionKey.js';
import { ActionButton } from './ActionButton.js';
import { StateBadge } from './StateBadge.js';
import { useActions, useTabmux } from './TabmuxContext.js';

export function ProfileItem(props: { profile: ProfileEntry; selected: boolean }) {
  const { profile } = props;
  const actions = useActions();
  const selectProfile = useTabmux((state) => state.selectProfile);
  const sessionCount = useTabmux((state) => Object.keys(state.sessions[profile.name] ?? {}).length);
  const running = profile.state !== 'stopped' && profile.state !== 'crashed';

  return (
    <li className={`profile-item${props.selected ? ' is-selected' : ''}`} data-testid={`profile-item-${profile.name}`} data-state={profile.state}>
      <button
        type="button"
        className="profile-select"
        onClick={() => selectProfile(profile.name)}
        aria-current={props.selected ? 'page' : undefined}
        data-testid={`profile-select-${profile.name}`}
      >
        <span className="profile-name">{profile.name}</span>
        <span className="profile-meta">
          <StateBadge state={profile.state} testId={`profile-state-${profile.name}`} />
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
          busyLabel="Stopping"
          testId={`profile-stop-${profile.name}`}
          onRun={() => actions.stopProfile(profile.name)}
          disabled={profile.state === 'stopping'}
          title="Stop the daemon, its Chrome and workers"
          confirmLabel="Stop?"
        >
          Stop
        </ActionButton>
      ) : (
        <ActionButton
          pendingKey={actionKey('profile', profile.name, 'start')}
          busyLabel="Starting"
          testId={`profile-start-${profile.name}`}
          onRun={() => actions.startProfile(profile.name)}
          title="Start the daemon with its own Chrome"
        >
          Start
        </ActionButton>
      )}
    </li>
  );
}
