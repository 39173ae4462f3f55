import { useEffect, useState, type UIEvent } from 'react';
import type { ActivityEntry } from '../../shared/activity.js';
import { activityExport, renderActivityReport, reportPictureNames } from '../../shared/activityReport.js';
import { formatDuration } from '../format/formatDuration.js';
import { timelineWindow } from '../state/timelineWindow.js';
import { downloadFile } from './downloadFile.js';
import { EmptyState } from './EmptyState.js';
import { OutcomeBadge } from './OutcomeBadge.js';
import { Panel } from './Panel.js';
import { useActions, useTabmux } from './TabmuxContext.js';

const ROW_HEIGHT = 30;
const VIEW_HEIGHT = 420;

function callDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : formatDuration(ms);
}

function argsText(entry: ActivityEntry): string {
  const text = JSON.stringify(entry.args);
  return text === '{}' ? '' : text;
}

/**
 * One session's history. Only the rows in view are drawn (fixed row height, a spacer above and below), so a history
 * of tens of thousands of calls scrolls as fast as a short one. A click shows a call's details below the list.
 */
export function TimelinePanel(props: { profile: string }) {
  const timeline = useTabmux((state) => (state.timeline?.profile === props.profile ? state.timeline : null));
  const label = useTabmux((state) => (timeline ? (state.sessions[props.profile]?.[timeline.session]?.label ?? null) : null));
  const actions = useActions();
  const [scrollTop, setScrollTop] = useState(0);
  const [selected, setSelected] = useState<string | null>(null);

  if (!timeline) {
    return null;
  }
  const { entries } = timeline;
  // A short history takes only the room it needs.
  const viewHeight = Math.min(VIEW_HEIGHT, entries.length * ROW_HEIGHT + 2);
  const { first, last } = timelineWindow(entries.length, ROW_HEIGHT, scrollTop, viewHeight);
  const shown = entries.slice(first, last);
  const detail = selected === null ? undefined : entries.find((entry) => entry.id === selected);
  const meta = { profile: props.profile, session: timeline.session, exportedAt: Date.now() };
  const onScroll = (event: UIEvent<HTMLDivElement>): void => setScrollTop(event.currentTarget.scrollTop);
  // The report is one file: the pictures it shows travel inside it.
  const exportHtml = async (): Promise<void> => {
    const pictures = new Map<string, string>();
    for (const name of reportPictureNames(entries)) {
      const data = await actions.logPicture(props.profile, name);
      if (data !== null) {
        pictures.set(name, data);
      }
    }
    downloadFile(`tabmux-${timeline.session}.html`, 'text/html', renderActivityReport(entries, { ...meta, pictures }));
  };

  return (
    <Panel
      title={`History of ${label ?? timeline.session}`}
      count={entries.length}
      testId="timeline-panel"
      actions={
        <>
          <button type="button" className="btn" data-testid="timeline-export-html" disabled={timeline.state !== 'ready'} onClick={() => void exportHtml()}>
            Export HTML
          </button>
          <button type="button" className="btn" data-testid="timeline-export-json" disabled={timeline.state !== 'ready'} onClick={() => downloadFile(`tabmux-${timeline.session}.json`, 'application/json', `${JSON.stringify(activityExport(entries, meta), null, 2)}\n`)}>
            Export JSON
          </button>
          <button type="button" className="btn" data-testid="timeline-close" onClick={actions.closeTimeline}>
            Close
          </button>
        </>
      }
    >
      {timeline.state === 'failed' ? (
        <EmptyState testId="timeline-failed" title="The history could not be read">
          <pre className="error-text">{timeline.error}</pre>
        </EmptyState>
      ) : timeline.state === 'loading' && entries.length === 0 ? (
        <EmptyState testId="timeline-loading" title="Reading the activity log…">
          <span className="spinner spinner-lg" aria-hidden="true" />
        </EmptyState>
      ) : entries.length === 0 ? (
        <EmptyState testId="timeline-empty" title="No calls yet">
          Each tool call this session makes shows here.
        </EmptyState>
      ) : (
        <>
          {timeline.truncated && <p className="muted timeline-note">Older calls are in the log but not shown here; read them with tabmux log.</p>}
          <div className="timeline" data-testid="timeline-list" data-count={entries.length} style={{ height: viewHeight }} onScroll={onScroll}>
            <div style={{ height: first * ROW_HEIGHT }} />
            {shown.map((entry) => (
              <button
                type="button"
                key={entry.id}
                className={`timeline-row${entry.id === selected ? ' is-selected' : ''}`}
                style={{ height: ROW_HEIGHT }}
                data-testid="timeline-row"
                data-entry-id={entry.id}
                onClick={() => setSelected(entry.id)}
              >
                <span className="timeline-time mono">{new Date(entry.at).toLocaleTimeString()}</span>
                <span className="timeline-tool mono">{entry.tool}</span>
                <OutcomeBadge outcome={entry.outcome} code={entry.error?.code} />
                <span className="timeline-ms">{callDuration(entry.durationMs)}</span>
                <span className="timeline-args mono truncate">{argsText(entry)}</span>
                <span className="timeline-url mono truncate">{entry.pageAfter?.url ?? ''}</span>
              </button>
            ))}
            <div style={{ height: (entries.length - last) * ROW_HEIGHT }} />
          </div>
          {detail && <TimelineDetail profile={props.profile} entry={detail} />}
        </>
      )}
    </Panel>
  );
}

function TimelineDetail(props: { profile: string; entry: ActivityEntry }) {
  const { entry } = props;
  const actions = useActions();
  const [picture, setPicture] = useState<string | null>(null);
  useEffect(() => {
    setPicture(null);
    const name = entry.picture;
    if (name === undefined) {
      return undefined;
    }
    let live = true;
    void actions.logPicture(props.profile, name).then((data) => live && setPicture(data));
    return () => {
      live = false;
    };
  }, [actions, props.profile, entry.picture]);
  return (
    <div className="timeline-detail" data-testid="timeline-detail">
      <div>
        <b className="mono">{entry.tool}</b> <OutcomeBadge outcome={entry.outcome} code={entry.error?.code} /> {new Date(entry.at).toLocaleString()} · {callDuration(entry.durationMs)}
      </div>
      {entry.error && (
        <p className="error-text">
          {entry.error.code}: {entry.error.message}
        </p>
      )}
      <pre className="mono">{JSON.stringify(entry.args, null, 2)}</pre>
      {entry.redacted.length > 0 && <p className="muted">Redacted: {entry.redacted.join(', ')}</p>}
      <p className="mono">
        {entry.pageBefore?.url ?? '(no page)'} → {entry.pageAfter?.url ?? '(no page)'}
      </p>
      {entry.opened.map((page) => (
        <p key={page.pageId} className="mono">
          opened page {page.pageId}: {page.url}
        </p>
      ))}
      {entry.summary && <pre className="mono">{entry.summary}</pre>}
      {picture !== null && <img className="timeline-picture" data-testid="timeline-picture" alt={`The tab after ${entry.tool}`} src={`data:image/jpeg;base64,${picture}`} />}
    </div>
  );
}
