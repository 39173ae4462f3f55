import { useMemo, useState } from 'react';
import { actionKey } from '../state/actionKey.js';
import { currentTabIds, sessionRows } from '../state/sessionRows.js';
import { EmptyState } from './EmptyState.js';
import { InlineForm } from './InlineForm.js';
import { Panel } from './Panel.js';
import { SessionRowView } from './SessionRowView.js';
import { useActions, useIsPending, useTabmux } from './TabmuxContext.js';
import { useNow } from './useNow.js';

export function SessionsPanel(props: { profile: string }) {
  const { profile } = props;
  const actions = useActions();
  const sessions = useTabmux((state) => state.sessions[profile]);
  const workerCount = useTabmux((state) => state.profiles[profile]?.workers.length ?? 0);
  const creating = useIsPending(actionKey('profile', profile, 'session.create'));
  const [formOpen, setFormOpen] = useState(false);
  const rows = useMemo(() => sessionRows(sessions), [sessions]);
  const tabs = useTabmux((state) => state.tabs[profile]);
  const currentTabs = useMemo(() => currentTabIds(tabs), [tabs]);
  const now = useNow(5_000);

  const create = (label: string): void => {
    setFormOpen(false);
    void actions.createSession(profile, label);
  };

  return (
    <Panel
      title="Sessions"
      count={rows.length}
      testId="sessions-panel"
      actions={
        <button type="button" className="btn btn-primary" data-testid="new-session-button" disabled={creating || formOpen} onClick={() => setFormOpen(true)}>
          {creating ? (
            <>
              <span className="spinner" aria-hidden="true" />
              Creating
            </>
          ) : (
            'New session'
          )}
        </button>
      }
      toolbar={
        formOpen && (
          <InlineForm
            placeholder="Label, e.g. research (optional)"
            submitLabel="Create"
            allowEmpty
            testIdPrefix="new-session"
            onSubmit={create}
            onCancel={() => setFormOpen(false)}
          />
        )
      }
    >
      {rows.length === 0 ? (
        <EmptyState testId="sessions-empty" title="No sessions yet">
          Point an agent at <code>tabmux mcp serve --profile {profile}</code>, or create a session here and attach a tab to it.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="sessions-table">
            <thead>
              <tr>
                <th>Session</th>
                <th>Activity</th>
                <th>Current tab</th>
                <th className="num">Tabs</th>
                <th>Last used</th>
                <th className="num">Queued</th>
                <th className="row-actions-head">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <SessionRowView
                  key={row.id}
                  profile={profile}
                  row={row}
                  now={now}
                  showWorker={workerCount > 1}
                  tabId={row.currentPage ? (currentTabs.get(`${row.id}\n${row.currentPage.pageId}`) ?? null) : null}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}
