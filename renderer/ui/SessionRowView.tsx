import type { SessionRow } from '../state/sessionRows.js';
import type { SessionCall } from '../state/sessionCall.js';
import { actionKey } from '../state/actionKey.js';
import { formatDuration } from '../format/formatDuration.js';
import { formatRelativeTime } from '../format/formatRelativeTime.js';
import { ActionButton } from './ActionButton.js';
import { OutcomeBadge } from './OutcomeBadge.js';
import { PictureButton } from './PictureButton.js';
import { RowMenu } from './RowMenu.js';
import { useActions } from './TabmuxContext.js';

export interface SessionRowProps {
  profile: string;
  row: SessionRow;
  call: SessionCall;
  now: number;
  showWorker: boolean;
  /** Chrome's id of the session's current tab, when the tab list names it: its live picture shows here. */
  tabId: string | null;
  /** A narrow pane: fewer columns, and the actions behind one menu button. */
  narrow: boolean;
}

export function SessionRowView(props: SessionRowProps) {
  const { profile, row, now, narrow } = props;
  const page = row.currentPage;
  const activity = (
    <span className={`pill pill-${row.activity}`} data-testid={`session-activity-${row.id}`}>
      {row.activity}
    </span>
  );

  return (
    <tr data-testid={`session-row-${row.id}`} data-activity={row.activity} className={row.paused ? 'is-paused' : undefined}>
      <td>
        <div className="cell-main" title={row.id}>
          {row.label ?? <span className="muted">unlabeled</span>}
          {narrow && <> {activity}</>}
          {narrow && row.queued > 0 && (
            <span className="muted small" title="Calls waiting in the queue">
              {' '}
              {row.queued} queued
            </span>
          )}
        </div>
        {/* Its parts may go onto lines of their own, so a narrow table keeps its room for the session's tab. */}
        <div className="cell-sub mono session-facts">
          <span>{row.shortId}</span>
          {props.showWorker && (
            <>
              {' '}
              <span className="muted" data-testid={`session-worker-${row.id}`} title={`Upstream worker ${row.worker} (a chrome-devtools-mcp process) runs this session's calls`}>
                · worker {row.worker}
              </span>
            </>
          )}
          {!row.owned && (
            <>
              {' '}
              <span className="muted" title="No client connection is bound to this session right now">
                · detached
              </span>
            </>
          )}
        </div>
      </td>
      {!narrow && <td>{activity}</td>}
      <td className="cell-page">
        {page ? (
          <div className="page-with-picture">
            {props.tabId !== null && <PictureButton profile={profile} tabId={props.tabId} testId={`session-picture-${row.id}`} />}
            <div className="page-text">
              <div className="cell-main truncate" title={page.title}>
                {page.title || <span className="muted">untitled</span>}
              </div>
              <div className="cell-sub truncate mono" title={page.url}>
                {page.url}
              </div>
            </div>
          </div>
        ) : (
          <span className="muted">no tab yet</span>
        )}
      </td>
      <td className="cell-call" data-testid={`session-call-${row.id}`} data-call={props.call.kind}>
        <CallCell call={props.call} now={now} />
      </td>
      {!narrow && (
        <>
          <td className="num">{row.pageCount}</td>
          <td className="nowrap" title={new Date(row.lastUsedAt).toLocaleString()}>
            {formatRelativeTime(row.lastUsedAt, now)}
          </td>
          <td className="num" data-testid={`session-queued-${row.id}`}>
            {row.queued > 0 ? <span className="pill pill-queued">{row.queued}</span> : <span className="muted">0</span>}
          </td>
        </>
      )}
      <td className={narrow ? 'row-actions row-actions-menu' : 'row-actions'}>
        {narrow ? (
          <RowMenu testId={`session-actions-${row.id}`} label="Actions" title="Pause, show or release the tab, history, close">
            <SessionActions profile={profile} row={row} />
          </RowMenu>
        ) : (
          <SessionActions profile={profile} row={row} />
        )}
      </td>
    </tr>
  );
}

/** The call a session runs or waits on (and for how long), or the last one it made (its outcome, and when). */
function CallCell(props: { call: SessionCall; now: number }) {
  const { call, now } = props;
  switch (call.kind) {
    case 'running':
      return (
        <>
          <div className="cell-main mono truncate" title={call.tool}>
            {call.tool}
          </div>
          <div className="cell-sub">running for {formatDuration(now - call.since)}</div>
        </>
      );
    case 'queued':
      return (
        <>
          <div className="cell-main mono truncate" title={call.tool}>
            {call.tool}
          </div>
          <div className="cell-sub">waiting for {formatDuration(now - call.since)}</div>
        </>
      );
    case 'last':
      return (
        <>
          <div className="cell-main mono truncate muted" title={`Last call: ${call.tool}, took ${formatDuration(call.durationMs)}`}>
            {call.tool}
          </div>
          <div className="cell-sub">
            <OutcomeBadge outcome={call.outcome} /> {formatRelativeTime(call.endedAt, now)}
          </div>
        </>
      );
    case 'none':
      return <span className="muted">no calls yet</span>;
  }
}

function SessionActions(props: { profile: string; row: SessionRow }) {
  const { profile, row } = props;
  const actions = useActions();
  const page = row.currentPage;
  return (
    <>
      {row.paused ? (
        <ActionButton
          pendingKey={actionKey('session', row.id, 'resume')}
          busyLabel="Resuming"
          testId={`session-resume-${row.id}`}
          onRun={() => actions.resumeSession(profile, row.id)}
          title="Let queued calls run again"
        >
          Resume
        </ActionButton>
      ) : (
        <ActionButton
          pendingKey={actionKey('session', row.id, 'pause')}
          busyLabel="Pausing"
          testId={`session-pause-${row.id}`}
          onRun={() => actions.pauseSession(profile, row.id)}
          title="Hold this session's next calls in the queue (a running call finishes)"
        >
          Pause
        </ActionButton>
      )}
      <ActionButton
        pendingKey={actionKey('session', row.id, 'front')}
        busyLabel="Showing"
        testId={`session-front-${row.id}`}
        onRun={() => (page ? actions.bringToFront(profile, row.id, page.pageId) : Promise.resolve())}
        disabled={!page}
        title="Bring this session's current tab to the front of its Chrome window"
      >
        Show tab
      </ActionButton>
      <ActionButton
        pendingKey={actionKey('page', page?.pageId ?? -1, 'release')}
        busyLabel="Releasing"
        testId={`session-release-${row.id}`}
        onRun={() => (page ? actions.releasePage(profile, row.id, page.pageId) : Promise.resolve())}
        disabled={!page}
        title="Give the current tab up: it stays open, unowned, and the session gets a new tab when it needs one"
      >
        Release tab
      </ActionButton>
      <button type="button" className="btn btn-ghost" data-testid={`session-history-${row.id}`} onClick={() => void actions.openHistory(profile, row.id)} title="What this session did: every call, its outcome and its pages">
        History
      </button>
      <ActionButton
        pendingKey={actionKey('session', row.id, 'close')}
        busyLabel="Closing"
        testId={`session-close-${row.id}`}
        onRun={() => actions.closeSession(profile, row.id)}
        variant="danger"
        title="End the session and close the tabs it opened"
        confirmLabel="Close?"
      >
        Close
      </ActionButton>
    </>
  );
}
