import type { TabRow } from '../state/tabRows.js';
import { actionKey } from '../state/actionKey.js';
import { ActionButton } from './ActionButton.js';
import { PictureButton } from './PictureButton.js';
import { useActions, useIsPending } from './TabmuxContext.js';

/** Page ids are per worker; worker 0 keeps the short test id so single-worker profiles read simply. */
export function tabTestId(row: Pick<TabRow, 'pageId' | 'worker'>): string {
  return row.worker === 0 ? `${row.pageId}` : `${row.pageId}-w${row.worker}`;
}

export function TabRowView(props: { profile: string; row: TabRow; showWorker: boolean }) {
  const { profile, row } = props;
  const actions = useActions();
  const id = tabTestId(row);
  const attaching = useIsPending(actionKey('page', row.pageId, 'attach'));

  return (
    <li className="tab-row" data-testid={`tab-row-${id}`} data-page-id={row.pageId} data-worker={row.worker} data-owner={row.owner?.id ?? ''}>
      {row.tabId === null ? <div className="picture-none" aria-hidden="true" /> : <PictureButton profile={profile} tabId={row.tabId} testId={`tab-picture-${id}`} />}
      <div className="tab-text">
        <div className="cell-main truncate" title={row.title}>
          {row.crashed !== null && (
            <>
              <span className="badge badge-error" data-testid={`tab-crashed-${id}`} title="The tab's page process ended; Chrome shows its crash page until the tab loads again (a session's navigate_page, or Reload in the browser)">
                crashed{row.crashed === 'crashed' ? '' : ` (${row.crashed === 'oom' ? 'out of memory' : row.crashed})`}
              </span>{' '}
            </>
          )}
          {row.title || <span className="muted">untitled</span>}
        </div>
        <div className="cell-sub truncate mono" title={row.url}>
          {row.url}
        </div>
      </div>
      <div className="tab-meta">
        {/* The worker of the session that owns the tab, as the session list says: page ids are the first worker's. */}
        {props.showWorker && row.ownerWorker !== null && (
          <span className="muted small" data-testid={`tab-worker-${id}`} title={`Upstream worker ${row.ownerWorker} (a chrome-devtools-mcp process) runs this tab's calls, for the session that owns it`}>
            worker {row.ownerWorker}
          </span>
        )}
        <span className="muted small" data-testid={`tab-page-${id}`} title={`Upstream page id ${row.pageId}, in worker ${row.worker}'s numbering`}>
          page {row.pageId}
        </span>
        {row.owner ? (
          <span className="owner" data-testid={`tab-owner-${id}`} title={row.owner.id}>
            {row.owner.name}
            {row.origin && <span className="muted"> · {row.origin}</span>}
          </span>
        ) : (
          <span className="owner owner-none" data-testid={`tab-owner-${id}`}>
            unowned
          </span>
        )}
      </div>
      <div className="row-actions">
        {row.owner ? (
          <ActionButton
            pendingKey={actionKey('page', row.pageId, 'release')}
            busyLabel="Releasing"
            testId={`tab-release-${id}`}
            onRun={() => (row.owner ? actions.releasePage(profile, row.owner.id, row.ownerPageId ?? row.pageId) : Promise.resolve())}
            title="Take the tab away from its session; it stays open"
          >
            Release
          </ActionButton>
        ) : (
          <select
            className="select"
            data-testid={`tab-attach-${id}`}
            value=""
            disabled={attaching || row.attachTo.length === 0}
            title={row.attachTo.length === 0 ? `No session yet; create one first` : 'Give this tab to a session'}
            onChange={(event) => {
              if (event.target.value) {
                void actions.attachPage(profile, event.target.value, row.pageId);
              }
            }}
          >
            <option value="">{attaching ? 'Attaching…' : 'Attach to…'}</option>
            {row.attachTo.map((session) => (
              <option key={session.id} value={session.id}>
                {session.name}
              </option>
            ))}
          </select>
        )}
      </div>
    </li>
  );
}
