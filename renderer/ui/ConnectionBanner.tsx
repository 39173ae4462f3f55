import { useTabmux } from './TabmuxContext.js';
import { useNow } from './useNow.js';

/** Says when the data on screen may be stale and what is being done about it. */
export function ConnectionBanner() {
  const connection = useTabmux((state) => state.connection);
  const loaded = useTabmux((state) => state.loaded);
  const now = useNow(1_000);

  // Before the first snapshot the main area explains the connection itself; the banner is for stale data.
  if (connection.state === 'open' || !loaded) {
    return null;
  }
  const seconds = connection.state === 'closed' && connection.retryAt !== null ? Math.max(0, Math.ceil((connection.retryAt - now) / 1000)) : null;
  return (
    <div className="banner" role="status" data-testid="connection-banner" data-state={connection.state}>
      <strong>{connection.state === 'connecting' ? 'Reconnecting…' : 'Disconnected.'}</strong>{' '}
      {connection.state === 'closed' && (
        <>
          {connection.reason} {seconds !== null && <span className="muted">Retrying in {seconds} s. What you see may be out of date.</span>}
        </>
      )}
    </div>
  );
}
