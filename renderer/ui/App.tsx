import { selectSelectedProfile } from '../state/selectProfiles.js';
import { ConnectionBanner } from './ConnectionBanner.js';
import { EmptyState } from './EmptyState.js';
import { ProfilePane } from './ProfilePane.js';
import { Sidebar } from './Sidebar.js';
import { Toasts } from './Toasts.js';
import { useTabmux } from './TabmuxContext.js';

function MainArea() {
  const loaded = useTabmux((state) => state.loaded);
  const loadError = useTabmux((state) => state.loadError);
  const connection = useTabmux((state) => state.connection);
  const selected = useTabmux(selectSelectedProfile);

  if (!loaded) {
    if (loadError) {
      return (
        <main className="pane">
          <EmptyState testId="load-error" title="Could not load the profiles">
            <pre className="error-text">{loadError}</pre>
            <p className="muted">Retrying on its own every few seconds.</p>
          </EmptyState>
        </main>
      );
    }
    if (connection.state === 'closed') {
      return (
        <main className="pane">
          <EmptyState testId="not-connected" title="Not connected to tabmux">
            <p>{connection.reason}</p>
            {connection.retryAt !== null && <p className="muted">Retrying on its own.</p>}
          </EmptyState>
        </main>
      );
    }
    return (
      <main className="pane">
        <EmptyState testId="loading" title="Loading profiles…">
          <span className="spinner spinner-lg" aria-hidden="true" />
        </EmptyState>
      </main>
    );
  }
  if (selected === null) {
    return (
      <main className="pane">
        <EmptyState testId="no-profiles" title="Nothing to show yet">
          Point an agent at <code>tabmux mcp serve --profile default</code>; its profile appears on the left.
        </EmptyState>
      </main>
    );
  }
  return <ProfilePane key={selected} profile={selected} />;
}

export function App() {
  return (
    <div className="app">
      <Sidebar />
      <div className="main">
        <ConnectionBanner />
        <MainArea />
      </div>
      <Toasts />
    </div>
  );
}
