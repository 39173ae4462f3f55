import { useMemo, useState } from 'react';
import { actionKey } from '../state/actionKey.js';
import { sessionCall } from '../state/sessionCall.js';
import { currentTabIds, sessionRows } from '../state/sessionRows.js';
import { EmptyState } from './EmptyState.js';
import { InlineForm } from './InlineForm.js';
import { Panel } from './Panel.js';
import { SessionRowView } from './SessionRowView.js';
import { useActions, useIsPending, useTabmux } from './TabmuxContext.js';
import { useElementSize } from './useElementSize.js';
import { useNow } from './useNow.js';

const NARROW_TABLE_PX = 960;

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
  const queue = useTabmux((state) => state.queue[profile]);
  // Running calls show how long they have run, to the second.
  const now = useNow(queue?.some((entry) => entry.state === 'running') ? 1_000 : 5_000);
  const [wrapRef, , size] = useElementSize<HTMLDivElement>();
  // Below this the table keeps the columns a person needs to act (what each session is on and doing; its activity
  // moves beside its name) and folds each row's actions into a menu, so nothing is cut off on a small screen.
  const narrow = size !== null && size.width < NARROW_TABLE_PX;

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
        <div className="table-wrap" ref={wrapRef}>
          <table className="table" data-testid="sessions-table" data-layout={narrow ? 'narrow' : 'wide'}>
            <thead>
              <tr>
                <th>Session</th>
                {!narrow && <th>Activity</th>}
                <th>Current tab</th>
                <th title="The call running or waiting now, else the last one and what became of it">Call</th>
                {!narrow && (
                  <>
                    <th className="num">Tabs</th>
                    <th>Last used</th>
                    <th className="num">Queued</th>
                  </>
                )}
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
                  call={sessionCall({ id: row.id, lastCall: row.lastCall }, queue)}
                  now={now}
                  narrow={narrow}
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
