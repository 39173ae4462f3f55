import { actionKey } from '../state/actionKey.js';
import { profileVerbs } from '../state/profileStatus.js';
import { ActionButton } from './ActionButton.js';
import { DebugPanel } from './DebugPanel.js';
import { EmptyState } from './EmptyState.js';
import { ProfileHeader } from './ProfileHeader.js';
import { QueuePanel } from './QueuePanel.js';
import { SessionsPanel } from './SessionsPanel.js';
import { TabsPanel } from './TabsPanel.js';
import { LiveView } from './LiveView.js';
import { HistoryView } from './HistoryView.js';
import { NeedsYou } from './NeedsYou.js';
import { PoliciesPanel } from './PoliciesPanel.js';
import { useActions, useTabmux } from './TabmuxContext.js';

/** The selected profile: its header, and either its live panels or what to do to get them. */
export function ProfilePane(props: { profile: string }) {
  const { profile } = props;
  const entry = useTabmux((state) => state.profiles[profile]);
  const debug = useTabmux((state) => state.debug);
  const liveView = useTabmux((state) => state.liveView);
  const view = useTabmux((state) => state.view);
  const actions = useActions();

  if (!entry) {
    return null;
  }

  const verbs = profileVerbs(entry);
  const startButton = (label: string) => (
    <ActionButton
      pendingKey={actionKey('profile', profile, 'start')}
      busyLabel={verbs.starting}
      testId={entry.kind === 'external' ? 'profile-connect-main' : 'profile-start-main'}
      variant="primary"
      title={verbs.startTitle}
      onRun={() => actions.startProfile(profile)}
    >
      {label}
    </ActionButton>
  );

  // Why the daemon is not serving, or how its last stop went, where the pane has no panels to show.
  const lastError = entry.lastError && (
    <pre className="error-text" data-testid="profile-error">
      {entry.lastError}
    </pre>
  );

  let body;
  if (entry.unanswered && !entry.daemon) {
    body = (
      <EmptyState testId="profile-unanswered" title="This profile's daemon does not answer">
        {lastError}
        <p>Its process took the connection and said nothing: it was stopped (a suspended job, a debugger) or is stuck. Stop ends it and the Chrome it ran.</p>
        <ActionButton
          pendingKey={actionKey('profile', profile, 'stop')}
          busyLabel={verbs.stopping}
          testId="profile-stop-main"
          variant="primary"
          title={verbs.stopTitle}
          onRun={() => actions.stopProfile(profile)}
        >
          {verbs.stop}
        </ActionButton>
      </EmptyState>
    );
  } else if (entry.kind === 'external' && entry.state === 'stopped') {
    body = (
      <EmptyState testId="profile-disconnected" title="Not connected to your browser">
        {lastError}
        <p>
          Connect to let agents open tabs of their own in the browser at <code>{entry.endpoint}</code>. Agents that use the profile connect on their own,
          too. Your tabs stay yours, and disconnecting never closes the browser.
        </p>
        {startButton('Connect')}
      </EmptyState>
    );
  } else if (entry.kind === 'external' && entry.state === 'crashed') {
    body = (
      <EmptyState testId="profile-connect-failed" title="Could not connect">
        <p>
          Is the browser running with <code>--remote-debugging-port</code> at <code>{entry.endpoint}</code>? Start it, then connect again.
        </p>
        {startButton('Connect again')}
      </EmptyState>
    );
  } else if (entry.state === 'stopped') {
    body = (
      <EmptyState testId="profile-stopped" title="This profile's daemon is not running">
        {lastError}
        <p>Start it to launch its Chrome and workers. Agents that use the profile start it on their own, too.</p>
        {startButton('Start profile')}
      </EmptyState>
    );
  } else if (entry.state === 'crashed') {
    body = (
      <EmptyState testId="profile-crashed" title="The daemon stopped unexpectedly">
        {lastError}
        {startButton('Start again')}
      </EmptyState>
    );
  } else if (!entry.daemon) {
    body = (
      <EmptyState testId="profile-starting" title={startingTitle(entry.kind, entry.state === 'stopping')}>
        <span className="spinner spinner-lg" aria-hidden="true" />
      </EmptyState>
    );
  } else {
    body = (
      <div className="panels">
        <NeedsYou profile={profile} />
        <div className="view-tabs" role="tablist" aria-label="What to show">
          <button type="button" role="tab" className="view-tab" data-testid="view-overview" aria-selected={view === 'overview'} onClick={actions.closeHistory}>
            Sessions and tabs
          </button>
          <button type="button" role="tab" className="view-tab" data-testid="view-history" aria-selected={view === 'history'} onClick={() => view !== 'history' && void actions.openHistory(profile)}>
            History
          </button>
        </div>
        {view === 'history' ? (
          <HistoryView profile={profile} />
        ) : (
          <>
            <SessionsPanel profile={profile} />
            <div className="panels-row">
              <TabsPanel profile={profile} />
              <QueuePanel profile={profile} />
            </div>
            <PoliciesPanel profile={profile} />
            {debug && <DebugPanel profile={profile} />}
          </>
        )}
        {liveView?.profile === profile && <LiveView key={liveView.tabId} profile={profile} tabId={liveView.tabId} />}
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

function startingTitle(kind: 'launched' | 'external', stopping: boolean): string {
  if (kind === 'external') {
    return stopping ? 'Disconnecting…' : 'Connecting to your browser…';
  }
  return stopping ? 'Stopping…' : 'Starting Chrome and its workers…';
}
