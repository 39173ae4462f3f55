import { actionKey } from '../state/actionKey.js';
import { ActionButton } from './ActionButton.js';
import { DebugPanel } from './DebugPanel.js';
import { EmptyState } from './EmptyState.js';
import { ProfileHeader } from './ProfileHeader.js';
import { QueuePanel } from './QueuePanel.js';
import { SessionsPanel } from './SessionsPanel.js';
import { TabsPanel } from './TabsPanel.js';
import { TimelinePanel } from './TimelinePanel.js';
import { useActions, useTabmux } from './TabmuxContext.js';

/** The selected profile: its header, and either its live panels or what to do to get them. */
export function ProfilePane(props: { profile: string }) {
  const { profile } = props;
  const entry = useTabmux((state) => state.profiles[profile]);
  const debug = useTabmux((state) => state.debug);
  const actions = useActions();

  if (!entry) {
    return null;
  }

  const startButton = (label: string) => (
    <ActionButton
      pendingKey={actionKey('profile', profile, 'start')}
      busyLabel="Starting"
      testId="profile-start-main"
      variant="primary"
      onRun={() => actions.startProfile(profile)}
    >
      {label}
    </ActionButton>
  );

  let body;
  if (entry.state === 'stopped') {
    body = (
      <EmptyState testId="profile-stopped" title="This profile's daemon is not running">
        <p>Start it to launch its Chrome and workers. Agents that use the profile start it on their own, too.</p>
        {startButton('Start profile')}
      </EmptyState>
    );
  } else if (entry.state === 'crashed') {
    body = (
      <EmptyState testId="profile-crashed" title="The daemon stopped unexpectedly">
        {entry.lastError && (
          <pre className="error-text" data-testid="profile-error">
            {entry.lastError}
          </pre>
        )}
        {startButton('Start again')}
      </EmptyState>
    );
  } else if (!entry.daemon) {
    body = (
      <EmptyState testId="profile-starting" title={entry.state === 'stopping' ? 'Stopping…' : 'Starting Chrome and its workers…'}>
        <span className="spinner spinner-lg" aria-hidden="true" />
      </EmptyState>
    );
  } else {
    body = (
      <div className="panels">
        <SessionsPanel profile={profile} />
        <TimelinePanel profile={profile} />
        <div className="panels-row">
          <TabsPanel profile={profile} />
          <QueuePanel profile={profile} />
        </div>
        {debug && <DebugPanel profile={profile} />}
      </div>
    );
  }

  return (
    <main className="pane" data-testid={`profile-pane-${profile}`}>
      <ProfileHeader profile={entry} />
      {body}
    </main>
  );
}
