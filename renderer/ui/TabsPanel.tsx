import { useMemo, useState } from 'react';
import { actionKey } from '../state/actionKey.js';
import { tabGroups, tabRows } from '../state/tabRows.js';
import { EmptyState } from './EmptyState.js';
import { InlineForm } from './InlineForm.js';
import { Panel } from './Panel.js';
import { TabRowView } from './TabRowView.js';
import { useActions, useIsPending, useTabmux } from './TabmuxContext.js';

export function TabsPanel(props: { profile: string }) {
  const { profile } = props;
  const actions = useActions();
  const tabs = useTabmux((state) => state.tabs[profile]);
  const sessions = useTabmux((state) => state.sessions[profile]);
  const workerCount = useTabmux((state) => state.profiles[profile]?.workers.length ?? 0);
  const opening = useIsPending(actionKey('profile', profile, 'tabs.open'));
  const [formOpen, setFormOpen] = useState(false);
  const rows = useMemo(() => tabRows(tabs, sessions), [tabs, sessions]);
  const groups = useMemo(() => tabGroups(rows), [rows]);
  const unowned = rows.filter((row) => row.owner === null).length;

  const open = (url: string): void => {
    setFormOpen(false);
    void actions.openTab(profile, url.trim());
  };

  return (
    <Panel
      title="Tabs"
      count={rows.length}
      testId="tabs-panel"
      actions={
        <>
          {unowned > 0 && <span className="muted small">{unowned} unowned</span>}
          <button
            type="button"
            className="btn btn-ghost"
            data-testid="open-tab-button"
            disabled={opening || formOpen}
            onClick={() => setFormOpen(true)}
            title="Open a tab yourself, e.g. to log in to a site the agents will use"
          >
            {opening ? (
              <>
                <span className="spinner" aria-hidden="true" />
                Opening
              </>
            ) : (
              'Open tab'
            )}
          </button>
        </>
      }
      toolbar={
        formOpen && (
          <InlineForm
            placeholder="https://example.com/login"
            submitLabel="Open"
            initialValue="https://"
            inputType="url"
            testIdPrefix="open-tab"
            onSubmit={open}
            onCancel={() => setFormOpen(false)}
          />
        )
      }
    >
      {rows.length === 0 ? (
        <EmptyState testId="tabs-empty" title="No tabs open">
          Tabs appear as agents work. Open one yourself to log in to a site before the agents use it.
        </EmptyState>
      ) : (
        groups.map((group) => (
          <section key={group.key} className="tab-group" data-testid="tab-group">
            {groups.length > 1 && <h3 className="tab-group-title muted small">{group.title}</h3>}
            <ul className="tab-list" data-testid="tab-list">
              {group.rows.map((row) => (
                <TabRowView key={row.key} profile={profile} row={row} showWorker={workerCount > 1} />
              ))}
            </ul>
          </section>
        ))
      )}
    </Panel>
  );
}
