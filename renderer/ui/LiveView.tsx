import { useCallback, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent, type WheelEvent } from 'react';
import type { TabPicture } from '../../shared/model.js';
import type { PictureInputRequest } from '../../shared/pictureInput.js';
import { actionKey } from '../state/actionKey.js';
import { queueRows } from '../state/queueRows.js';
import { sessionName } from '../state/sessionRows.js';
import { ActionButton } from './ActionButton.js';
import { keyInput, modifierBits, mouseButton, pagePoint } from './takeoverInput.js';
import { TabPictureView } from './TabPictureView.js';
import { useActions, usePictures, useTabmux } from './TabmuxContext.js';
import { useElementSize } from './useElementSize.js';
import { useNow } from './useNow.js';
import { fitInside, type Size } from './fitInside.js';

/** Pointer moves are many; one every this many milliseconds is enough for hovers and drags. */
const MOVE_INTERVAL_MS = 50;

/**
 * A large live picture of one tab, with its title, URL and its session's queue. "Take over" pauses the session and
 * sends the person's clicks, wheel and keys to the tab; "Hand back" resumes it. A tab no session owns takes input
 * at once. Input goes out in order, one event at a time.
 */
export function LiveView(props: { profile: string; tabId: string }) {
  const { profile, tabId } = props;
  const actions = useActions();
  const pictures = usePictures();
  const close = useTabmux((state) => state.closeLiveView);
  const tab = useTabmux((state) => state.tabs[profile]?.find((candidate) => candidate.tabId === tabId));
  const session = useTabmux((state) => (tab?.owner ? state.sessions[profile]?.[tab.owner] : undefined));
  const sessions = useTabmux((state) => state.sessions[profile]);
  const queue = useTabmux((state) => state.queue[profile]);
  const now = useNow(1_000);
  const rows = useMemo(() => queueRows(queue, sessions, now).filter((row) => row.sessionId === session?.id), [queue, sessions, now, session?.id]);
  const latest = useRef<TabPicture | null>(null);
  const sending = useRef<Promise<void>>(Promise.resolve());
  const lastMove = useRef(0);
  const surface = useRef<HTMLDivElement>(null);
  // The picture takes all the room the window leaves it, at the tab's proportions (frames come at most 1280x800, so
  // on a large screen they are scaled up rather than shown small in the middle).
  const [stageRef, , stage] = useElementSize<HTMLDivElement>();
  const [frame, setFrame] = useState<Size | null>(null);
  const shown = stage && frame ? fitInside(frame, stage) : null;
  const controlling = session ? session.paused : tab !== undefined;

  const send = useCallback(
    (input: PictureInputRequest | undefined): void => {
      if (!input || !controlling) {
        return;
      }
      sending.current = sending.current.then(() => pictures.input(profile, tabId, input)).catch(() => undefined);
    },
    [controlling, pictures, profile, tabId],
  );

  const point = (event: PointerEvent | WheelEvent): { x: number; y: number } | undefined => {
    const canvas = surface.current?.querySelector('canvas');
    const picture = latest.current;
    return canvas && picture ? pagePoint(event, canvas.getBoundingClientRect(), picture) : undefined;
  };

  const onPointer = (type: 'mousePressed' | 'mouseReleased' | 'mouseMoved') => (event: PointerEvent) => {
    const at = point(event);
    if (!at || !controlling) {
      return;
    }
    if (type === 'mouseMoved') {
      if (event.timeStamp - lastMove.current < MOVE_INTERVAL_MS) {
        return;
      }
      lastMove.current = event.timeStamp;
    } else {
      event.preventDefault();
      surface.current?.focus();
    }
    const button = type === 'mouseMoved' ? (event.buttons & 1 ? 'left' : 'none') : mouseButton(event.button);
    send({ kind: 'mouse', type, ...at, button, clickCount: type === 'mouseMoved' ? 0 : Math.max(1, event.detail), modifiers: modifierBits(event) });
  };

  const onWheel = (event: WheelEvent): void => {
    const at = point(event);
    if (at) {
      send({ kind: 'wheel', ...at, deltaX: event.deltaX, deltaY: event.deltaY, modifiers: modifierBits(event) });
    }
  };

  const onKey = (type: 'keyDown' | 'keyUp') => (event: KeyboardEvent): void => {
    if (!controlling) {
      if (event.key === 'Escape') {
        close();
      }
      return;
    }
    event.preventDefault();
    send(keyInput(event, type));
  };

  return (
    <div className="live-backdrop" data-testid="live-view" data-tab-id={tabId} role="dialog" aria-label="Live view">
      <div className="live-view">
        <header className="live-header">
          <div className="live-title">
            <div className="cell-main truncate" data-testid="live-title" title={tab?.title}>
              {tab?.title || <span className="muted">untitled</span>}
            </div>
            <div className="cell-sub truncate mono" data-testid="live-url" title={tab?.url}>
              {tab?.url ?? 'this tab is gone'}
            </div>
          </div>
          <button type="button" className="btn" data-testid="live-close" onClick={close}>
            Close
          </button>
        </header>
        <div className="live-body">
          <div
            ref={surface}
            className={`live-surface${controlling ? ' is-controlling' : ''}`}
            data-testid="live-surface"
            data-controlling={controlling ? 'yes' : 'no'}
            tabIndex={0}
            onPointerDown={onPointer('mousePressed')}
            onPointerUp={onPointer('mouseReleased')}
            onPointerMove={onPointer('mouseMoved')}
            onWheel={onWheel}
            onKeyDown={onKey('keyDown')}
            onKeyUp={onKey('keyUp')}
            onContextMenu={(event) => event.preventDefault()}
          >
            <div ref={stageRef} className="live-stage">
              <TabPictureView
                profile={profile}
                tabId={tabId}
                size="live"
                testId="live-picture"
                className="picture-live"
                style={shown ? { width: shown.width, height: shown.height } : undefined}
                onPicture={(picture, canvas) => {
                  latest.current = picture;
                  setFrame((last) => (last?.width === canvas.width && last.height === canvas.height ? last : { width: canvas.width, height: canvas.height }));
                }}
              />
            </div>
          </div>
          <aside className="live-side">
            {session ? (
              <>
                <div className="cell-main">{sessionName(session)}</div>
                <div className="cell-sub">
                  <span className={`pill pill-${session.paused ? 'paused' : session.activity}`} data-testid="live-session-state">
                    {session.paused ? 'paused' : session.activity}
                  </span>
                </div>
                {session.paused ? (
                  <ActionButton
                    pendingKey={actionKey('session', session.id, 'resume')}
                    busyLabel="Handing back"
                    testId="live-hand-back"
                    onRun={async () => {
                      // What the person did before handing back reaches the page before the agent runs again.
                      await sending.current;
                      await actions.resumeSession(profile, session.id);
                    }}
                    title="Resume the session; its next result tells it you changed the page"
                  >
                    Hand back
                  </ActionButton>
                ) : (
                  <ActionButton
                    pendingKey={actionKey('session', session.id, 'pause')}
                    busyLabel="Taking over"
                    testId="live-take-over"
                    onRun={() => actions.pauseSession(profile, session.id)}
                    title="Pause the session (a running call finishes) and use the tab yourself"
                  >
                    Take over
                  </ActionButton>
                )}
                <h3 className="live-queue-title">Queue</h3>
                {rows.length === 0 ? (
                  <p className="muted small">Nothing queued.</p>
                ) : (
                  <ol className="live-queue" data-testid="live-queue">
                    {rows.map((row) => (
                      <li key={row.callId} className="mono small">
                        {row.tool} <span className={`pill pill-${row.state}`}>{row.state}</span>
                      </li>
                    ))}
                  </ol>
                )}
              </>
            ) : (
              <p className="muted small">No session owns this tab: what you do here goes straight to it.</p>
            )}
            <p className="muted small">{controlling ? 'Your clicks and keys go to the tab.' : 'Take over to click and type in the tab.'}</p>
          </aside>
        </div>
      </div>
    </div>
  );
}
