import { useEffect, useLayoutEffect, useMemo, useRef, useState, type UIEvent } from 'react';
import { ACTIVITY_OUTCOMES, type ActivityEntry, type ActivityOutcome } from '../../shared/activity.js';
import { activityExport, renderActivityReport, reportPictureNames } from '../../shared/activityReport.js';
import { formatDuration } from '../format/formatDuration.js';
import { shortId } from '../format/shortId.js';
import { historyChoices, historyRows } from '../state/Timeline.js';
import { timelineWindow } from '../state/timelineWindow.js';
import { downloadFile } from './downloadFile.js';
import { EmptyState } from './EmptyState.js';
import { OutcomeBadge } from './OutcomeBadge.js';
import { Panel } from './Panel.js';
import { useActions, useTabmux } from './TabmuxContext.js';
import { useElementSize } from './useElementSize.js';

const ROW_HEIGHT = 30;

function callDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : formatDuration(ms);
}

function argsText(entry: ActivityEntry): string {
  const text = JSON.stringify(entry.args);
  return text === '{}' ? '' : text;
}

function isOutcome(value: string): value is ActivityOutcome {
  return (ACTIVITY_OUTCOMES as readonly string[]).includes(value);
}

/**
 * A profile's history: every session's calls, newest first, filtered by session, tool and outcome. Only the rows in
 * view are drawn (fixed row height, a spacer above and below), so tens of thousands of calls scroll as fast as a few.
 * New calls join at the top; whoever scrolled down to read keeps their rows where they are. A click shows a call's
 * details beside (or, when narrow, below) the list.
 */
export function HistoryView(props: { profile: string }) {
  const { profile } = props;
  const timeline = useTabmux((state) => (state.timeline?.profile === profile ? state.timeline : null));
  const filter = useTabmux((state) => state.historyFilter);
  const setFilter = useTabmux((state) => state.setHistoryFilter);
  const sessions = useTabmux((state) => state.sessions[profile]);
  const actions = useActions();
  const [listRef, listElement, listSize] = useElementSize<HTMLDivElement>();
  const [scrollTop, setScrollTop] = useState(0);
  const [selected, setSelected] = useState<string | null>(null);
  const entries = useMemo(() => timeline?.entries ?? [], [timeline]);
  const rows = useMemo(() => historyRows(entries, filter), [entries, filter]);
  const choices = useMemo(() => historyChoices(entries, filter), [entries, filter]);

  // Rows that arrive above the ones being read push them down; scrolling by as much keeps them in place. At the
  // top, nothing is adjusted, so the newest calls come into view as they happen.
  const newest = useRef<string | undefined>(undefined);
  useLayoutEffect(() => {
    const previous = newest.current;
    newest.current = rows[0]?.id;
    const element = listElement;
    if (!element || previous === undefined || element.scrollTop === 0 || rows[0]?.id === previous) {
      return;
    }
    const added = rows.findIndex((entry) => entry.id === previous);
    if (added > 0) {
      element.scrollTop += added * ROW_HEIGHT;
      setScrollTop(element.scrollTop);
    }
  }, [rows, listElement]);

  // A different filter starts at the newest again.
  useEffect(() => {
    if (listElement) {
      listElement.scrollTop = 0;
    }
    setScrollTop(0);
    // Only a new filter jumps back, not the list element appearing.
  }, [filter]);

  if (!timeline) {
    return null;
  }
  const viewHeight = listSize?.height ?? 600;
  const { first, last } = timelineWindow(rows.length, ROW_HEIGHT, scrollTop, viewHeight);
  const shown = rows.slice(first, last);
  const detail = selected === null ? undefined : rows.find((entry) => entry.id === selected);
  const onScroll = (event: UIEvent<HTMLDivElement>): void => setScrollTop(event.currentTarget.scrollTop);
  const sessionFilter = filter.session;
  const sessionLabel = sessionFilter === null ? null : (sessions?.[sessionFilter]?.label ?? choices.sessions.find((choice) => choice.value === sessionFilter)?.label ?? shortId(sessionFilter));
  // Reports are a session's: they read oldest first, as the log does.
  const exported = (): readonly ActivityEntry[] => [...rows].reverse();
  const meta = (session: string) => ({ profile, session, exportedAt: Date.now() });
  // The report is one file: the pictures it shows travel inside it.
  const exportHtml = async (session: string): Promise<void> => {
    const chosen = exported();
    const pictures = new Map<string, string>();
    for (const name of reportPictureNames(chosen)) {
      const data = await actions.logPicture(profile, name);
      if (data !== null) {
        pictures.set(name, data);
      }
    }
    downloadFile(`tabmux-${session}.html`, 'text/html', renderActivityReport(chosen, { ...meta(session), pictures }));
  };
  const exportTitle = sessionFilter === null ? 'Choose a session to export its calls (tabmux log --export exports any)' : undefined;

  return (
    <Panel
      title={sessionLabel === null ? 'History' : `History of ${sessionLabel}`}
      count={rows.length}
      testId="timeline-panel"
      actions={
        <>
          <button
            type="button"
            className="btn"
            data-testid="timeline-export-html"
            title={exportTitle}
            disabled={timeline.state !== 'ready' || sessionFilter === null}
            onClick={() => sessionFilter !== null && void exportHtml(sessionFilter)}
          >
            Export HTML
          </button>
          <button
            type="button"
            className="btn"
            data-testid="timeline-export-json"
            title={exportTitle}
            disabled={timeline.state !== 'ready' || sessionFilter === null}
            onClick={() => sessionFilter !== null && downloadFile(`tabmux-${sessionFilter}.json`, 'application/json', `${JSON.stringify(activityExport(exported(), meta(sessionFilter)), null, 2)}\n`)}
          >
            Export JSON
          </button>
        </>
      }
      toolbar={
        <div className="history-filters" data-testid="history-filters">
          <label>
            Session
            <select className="select" data-testid="history-filter-session" value={filter.session ?? ''} onChange={(event) => setFilter({ session: event.target.value || null })}>
              <option value="">All sessions</option>
              {choices.sessions.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Tool
            <select className="select" data-testid="history-filter-tool" value={filter.tool ?? ''} onChange={(event) => setFilter({ tool: event.target.value || null })}>
              <option value="">All tools</option>
              {choices.tools.map((tool) => (
                <option key={tool} value={tool}>
                  {tool}
                </option>
              ))}
            </select>
          </label>
          <label>
            Outcome
            <select
              className="select"
              data-testid="history-filter-outcome"
              value={filter.outcome ?? ''}
              onChange={(event) => setFilter({ outcome: isOutcome(event.target.value) ? event.target.value : null })}
            >
              <option value="">Any outcome</option>
              {ACTIVITY_OUTCOMES.map((outcome) => (
                <option key={outcome} value={outcome}>
                  {outcome.replace('_', ' ')}
                </option>
              ))}
            </select>
          </label>
          <span className="muted small">Newest first</span>
        </div>
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
      ) : rows.length === 0 ? (
        <EmptyState testId="timeline-empty" title={entries.length === 0 ? 'No calls yet' : 'No call matches'}>
          {entries.length === 0 ? 'Each tool call an agent makes shows here as it is answered.' : 'Choose another session, tool or outcome above.'}
        </EmptyState>
      ) : (
        <>
          {timeline.truncated && <p className="muted timeline-note">Older calls are in the log but not shown here; read them with tabmux log.</p>}
          <div className="history-body">
            <div ref={listRef} className="timeline" data-testid="timeline-list" data-count={rows.length} style={{ height: rows.length * ROW_HEIGHT + 2 }} onScroll={onScroll}>
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
                  <span className="timeline-time mono" title={new Date(entry.at).toLocaleString()}>
                    {new Date(entry.at).toLocaleTimeString()}
                  </span>
                  <span className="timeline-session truncate" title={entry.session}>
                    {entry.label ?? shortId(entry.session)}
                  </span>
                  <span className="timeline-tool mono">{entry.tool}</span>
                  <OutcomeBadge outcome={entry.outcome} code={entry.error?.code} />
                  <span className="timeline-ms">{callDuration(entry.durationMs)}</span>
                  <span className="timeline-args mono truncate">{argsText(entry)}</span>
                  <span className="timeline-url mono truncate">{entry.pageAfter?.url ?? ''}</span>
                </button>
              ))}
              <div style={{ height: (rows.length - last) * ROW_HEIGHT }} />
            </div>
            {detail && <TimelineDetail profile={profile} entry={detail} />}
          </div>
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
      <p className="muted small" title={entry.session}>
        session {entry.label ?? shortId(entry.session)}
      </p>
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
