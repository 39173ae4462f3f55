import { useMemo } from 'react';
import { debugRows } from '../state/debugRows.js';
import { Panel } from './Panel.js';
import { useTabmux } from './TabmuxContext.js';

const pageLabel = (pageId: number | null, title: string | null): string =>
  pageId === null ? 'none' : `page ${pageId}${title ? ` · ${title}` : ''}`;

/**
 * Upstream's own selected page per worker, beside each session's current page. Routing never relies on upstream's
 * selection, so a difference is expected and shown as information only.
 */
export function DebugPanel(props: { profile: string }) {
  const { profile } = props;
  const workers = useTabmux((state) => state.profiles[profile]?.workers);
  const sessions = useTabmux((state) => state.sessions[profile]);
  const tabs = useTabmux((state) => state.tabs[profile]);
  const rows = useMemo(() => debugRows(workers ?? [], sessions, tabs), [workers, sessions, tabs]);
  const spare = (workers?.length ?? 0) - rows.length;

  return (
    <Panel title="Debug" count={rows.length} testId="debug-panel">
      <p className="panel-note">
        Upstream keeps its own “selected page”; tabmux passes each session’s page explicitly, so a difference here is normal.
      </p>
      <div className="debug-grid">
        {rows.map((worker) => (
          <div className="debug-worker" key={worker.index} data-testid={`debug-worker-${worker.index}`}>
            <div className="debug-worker-head">
              <strong>Worker {worker.index}</strong>
              <span className="muted small mono">
                pid {worker.pid ?? '—'}
                {worker.residentMb !== null && <span data-testid={`debug-memory-${worker.index}`}> · {worker.residentMb} MiB</span>} · {worker.state} · {worker.inFlight} in flight
              </span>
            </div>
            <div className="debug-line">
              <span className="muted">upstream selected</span>
              <span className="mono truncate" data-testid={`debug-selected-${worker.index}`}>
                {pageLabel(worker.selectedPageId, worker.selectedTitle)}
              </span>
            </div>
            <div className="debug-line">
              <span className="muted">busy with</span>
              <span className="mono truncate" data-testid={`debug-busy-${worker.index}`}>
                {worker.busy ? `${worker.busy.tool} of ${worker.busy.sessionName}` : 'nothing'}
              </span>
            </div>
            {worker.lastError && <p className="notice notice-warn small">{worker.lastError}</p>}
            {worker.sessions.length === 0 && <p className="muted small">No sessions on this worker.</p>}
            {worker.sessions.map((session) => (
              <div
                className={`debug-line${session.differs ? ' is-different' : ''}`}
                key={session.id}
                data-testid={`debug-session-${session.id}`}
                data-matches={session.matchesUpstream ? 'true' : 'false'}
              >
                <span>{session.name}</span>
                <span className="mono truncate">
                  {pageLabel(session.currentPageId, session.currentTitle)}
                  {session.differs && <span className="hint"> differs from upstream</span>}
                </span>
              </div>
            ))}
          </div>
        ))}
      </div>
      {spare > 0 && <p className="muted small debug-spare">{spare} more worker(s) start as sessions need them.</p>}
    </Panel>
  );
}
