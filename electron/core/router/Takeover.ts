import { TabmuxError } from '../../../shared/errors.js';
import type { Session } from './Session.js';

/**
 * A person's hands on an agent's tab. Input goes to a tab only while no agent drives it: a tab a session owns (or
 * is about to, a popup it opened) takes input only while that session is paused, so a person's click never lands
 * between two of the agent's steps. A tab nobody owns is the person's. The first input of a takeover leaves the
 * session a note for its next result, and its uid tokens stale: the page they described may have changed.
 */
export class Takeover {
  /** Sessions whose tab a person has touched since they were paused. */
  readonly #touched = new Set<string>();

  /** The session whose tab this is, checked to be paused; undefined for a tab no session owns. */
  check(tabId: string, owner: Session | undefined): Session | undefined {
    if (owner && !owner.paused) {
      throw new TabmuxError(
        'page_conflict',
        `tab ${tabId} belongs to session ${owner.id}, which is running; take it over first (pause the session: tabmux session pause --session ${owner.id}), then send input`,
      );
    }
    return owner;
  }

  /** Records that a person changed a paused session's page: once per takeover, a note and stale tokens. */
  touched(session: Session, url: string | undefined): void {
    if (this.#touched.has(session.id)) {
      return;
    }
    this.#touched.add(session.id);
    for (const page of session.pages.values()) {
      page.snapshotEpoch = null;
    }
    // A new epoch, so a token minted just before cannot match a snapshot taken in the same epoch number later.
    session.epoch++;
    session.notes.push(
      `Note: while this session was paused, the user took over its tab${url ? ` (${url})` : ''} and clicked or typed in it; the page may have changed. uid tokens from earlier snapshots are stale: take a new snapshot before using uids.`,
    );
  }

  /** A takeover ends when the session is resumed; the next one leaves a new note. */
  handedBack(sessionId: string): void {
    this.#touched.delete(sessionId);
  }
}
