import type { Logger } from '../platform/Logger.js';
import type { Session } from './Session.js';

/** What the router needs of the browser's contexts (`BrowserContexts`, on the daemon's own connection). */
export interface ContextSource {
  /** A new, empty browser context; its id. */
  create(): Promise<string>;
  /** Closes a context with its tabs; false when it was gone already. */
  dispose(browserContextId: string): Promise<boolean>;
}

/**
 * The name a session gave one of its isolated contexts, by the browser's id of it. Names are the session's own: two
 * sessions that pick the same name get two contexts, and an agent never sees another session's.
 */
export function contextName(session: Session, browserContextId: string | undefined): string | null {
  if (browserContextId === undefined) {
    return null;
  }
  for (const [name, id] of session.contexts) {
    if (id === browserContextId) {
      return name;
    }
  }
  return null;
}

/** Disposes every isolated context of a session that ended (each with its tabs, cookies and storage). */
export async function disposeContexts(session: Session, source: ContextSource | undefined, logger: Logger): Promise<void> {
  const ids = [...session.contexts.values()];
  session.contexts.clear();
  for (const id of ids) {
    if (!source) {
      logger.warn(`session ${session.id}: its isolated context ${id} could not be disposed (no browser connection); the browser disposes it when tabmux disconnects`);
    } else if (!(await source.dispose(id))) {
      logger.debug(`session ${session.id}: isolated context ${id} was gone already`);
    }
  }
}
