import { useEffect, useRef, useState } from 'react';
import type { HumanRequest, SessionInfo } from '../../shared/model.js';
import { actionKey } from '../state/actionKey.js';
import { ActionButton } from './ActionButton.js';
import { TabPictureView } from './TabPictureView.js';
import { useActions, useTabmux } from './TabmuxContext.js';

/** The requests the profile's sessions wait on, as one string: it changes exactly when the list must be read again. */
function waitingKey(sessions: Record<string, SessionInfo> | undefined): string {
  return Object.values(sessions ?? {})
    .flatMap((session) => (session.waitingForHuman ? [session.waitingForHuman.requestId] : []))
    .sort()
    .join(',');
}

/**
 * "Needs you": what agents of the profile wait on a person for, at the top of the profile: questions to answer and
 * calls a confirm policy holds, each with a picture of the session's tab. The sessions' waiting state comes pushed
 * with every session change; the requests themselves are read again whenever it changes.
 */
export function NeedsYou(props: { profile: string }) {
  const { profile } = props;
  const waiting = useTabmux((state) => waitingKey(state.sessions[profile]));
  const actions = useActions();
  const [requests, setRequests] = useState<HumanRequest[]>([]);
  const told = useRef(new Set<string>());

  useEffect(() => {
    // Each new request once, as a desktop notification where the person allowed them (the dashboard may be hidden).
    for (const request of requests) {
      if (!told.current.has(request.id)) {
        told.current.add(request.id);
        notify(request);
      }
    }
  }, [requests]);

  useEffect(() => {
    let current = true;
    if (waiting === '') {
      setRequests([]);
      return;
    }
    void actions.loadRequests(profile).then((loaded) => {
      if (current) {
        setRequests(loaded);
      }
    });
    return () => {
      current = false;
    };
  }, [profile, waiting, actions]);

  if (requests.length === 0) {
    return null;
  }
  return (
    <section className="panel needs-you" data-testid="needs-you" aria-label="Needs you">
      <h2 className="panel-title">Needs you</h2>
      <NotifyMe />
      <ul className="needs-you-list">
        {requests.map((request) => (
          <NeedsYouItem key={request.id} profile={profile} request={request} />
        ))}
      </ul>
    </section>
  );
}

function notificationsAvailable(): boolean {
  return typeof Notification !== 'undefined';
}

function notify(request: HumanRequest): void {
  if (!notificationsAvailable() || Notification.permission !== 'granted') {
    return;
  }
  const who = request.label ?? request.sessionId;
  new Notification(request.kind === 'question' ? `${who} asks` : `${who} wants to run ${request.tool}`, { body: request.question, tag: request.id });
}

/** Offers desktop notifications while the browser has not been asked yet; asking needs the person's click. */
function NotifyMe() {
  const [permission, setPermission] = useState(() => (notificationsAvailable() ? Notification.permission : 'denied'));
  if (permission !== 'default') {
    return null;
  }
  return (
    <button type="button" className="btn btn-ghost" data-testid="needs-you-notify" onClick={() => void Notification.requestPermission().then(setPermission)}>
      Notify me
    </button>
  );
}

function NeedsYouItem(props: { profile: string; request: HumanRequest }) {
  const { profile, request } = props;
  const actions = useActions();
  const [text, setText] = useState('');
  const pendingKey = actionKey('request', profile, request.id);
  const who = request.label ?? request.sessionId;
  return (
    <li className="needs-you-item" data-testid={`request-${request.id}`}>
      {request.tabId !== undefined && <TabPictureView profile={profile} tabId={request.tabId} size="thumb" testId={`request-picture-${request.id}`} className="needs-you-picture" />}
      <div className="needs-you-body">
        <p className="needs-you-what">
          <strong>{who}</strong> {request.kind === 'question' ? 'asks' : `wants to run ${request.tool}`}
          {request.url ? <span className="muted"> on {request.url}</span> : null}
        </p>
        <p className="needs-you-question" data-testid={`request-question-${request.id}`}>
          {request.question}
        </p>
        {request.arguments !== undefined && <pre className="needs-you-args">{JSON.stringify(request.arguments)}</pre>}
        <div className="needs-you-actions">
          {request.kind === 'confirm' ? (
            <>
              <ActionButton pendingKey={pendingKey} busyLabel="Approving…" testId={`request-approve-${request.id}`} variant="primary" onRun={() => actions.decideRequest(profile, request.id, true)}>
                Approve
              </ActionButton>
              <input aria-label="Reason for denying" placeholder="Reason (optional)" value={text} onChange={(event) => setText(event.target.value)} />
              <ActionButton pendingKey={pendingKey} busyLabel="Denying…" testId={`request-deny-${request.id}`} variant="danger" onRun={() => actions.decideRequest(profile, request.id, false, text)}>
                Deny
              </ActionButton>
            </>
          ) : (
            <>
              {request.choices.map((choice) => (
                <ActionButton key={choice} pendingKey={pendingKey} busyLabel="Answering…" testId={`request-choice-${request.id}`} variant="ghost" onRun={() => actions.answerRequest(profile, request.id, choice)}>
                  {choice}
                </ActionButton>
              ))}
              <input aria-label="Your answer" placeholder="Your answer" value={text} onChange={(event) => setText(event.target.value)} />
              <ActionButton pendingKey={pendingKey} busyLabel="Answering…" testId={`request-answer-${request.id}`} variant="primary" disabled={text.trim() === ''} onRun={() => actions.answerRequest(profile, request.id, text)}>
                Answer
              </ActionButton>
            </>
          )}
        </div>
      </div>
    </li>
  );
}
