import { useMemo } from 'react';
import { actionKey } from '../state/actionKey.js';
import { queueRows } from '../state/queueRows.js';
import { formatDuration } from '../format/formatDuration.js';
import { ActionButton } from './ActionButton.js';
import { EmptyState } from './EmptyState.js';
import { Panel } from './Panel.js';
import { useActions, useTabmux } from './TabmuxContext.js';
import { useNow } from './useNow.js';

/** Lives in its own component so only the queue re-renders on the one-second tick. */
export function QueuePanel(props: { profile: string }) {
  const { profile } = props;
  const actions = useActions();
  const queue = useTabmux((state) => state.queue[profile]);
  const sessions = useTabmux((state) => state.sessions[profile]);
  const now = useNow(1_000);
  const rows = useMemo(() => queueRows(queue, sessions, now), [queue, sessions, now]);

  return (
    <Panel title="Queue" count={rows.length} testId="queue-panel">
      {rows.length === 0 ? (
        <EmptyState testId="queue-empty" title="Queue is empty">
          Tool calls show here while they wait for or run on a worker.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="queue-table">
            <thead>
              <tr>
                <th>Session</th>
                <th>Tool</th>
                <th>State</th>
                <th className="num">Waited</th>
                <th className="num">Running</th>
                <th className="row-actions-head">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.callId} data-testid={`queue-row-${row.callId}`} data-state={row.state} className={row.internal ? 'row-internal' : undefined}>
                  <td title={row.sessionId}>{row.sessionName}</td>
                  <td className="mono">{row.tool}</td>
                  <td>
                    <span className={`pill pill-${row.state}`}>{row.state}</span>
                  </td>
                  <td className="num mono">{formatDuration(row.waitedMs)}</td>
                  <td className="num mono">{row.runningMs === null ? '—' : formatDuration(row.runningMs)}</td>
                  <td className="row-actions">
                    {row.state === 'queued' && !row.internal && (
                      <ActionButton
                        pendingKey={actionKey('call', row.callId, 'cancel')}
                        busyLabel="Cancelling"
                        testId={`queue-cancel-${row.callId}`}
                        onRun={() => actions.cancelCall(profile, row.callId)}
                        title="Drop this call; the agent gets a cancelled error"
                      >
                        Cancel
                      </ActionButton>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}
