import type { RewriteContext } from '../../electron/core/router/responseRewriter.js';
import { Session } from '../../electron/core/router/Session.js';
import { Worker } from '../../electron/core/router/Worker.js';

/** Router state for rewriting a response outside a daemon: a session that owns the page the snapshot came from. */
export function snapshotContext(): RewriteContext {
  const session = new Session('sess-00000000abcd1234', 'abcd1234', null, 0, Date.now());
  const worker = newWorker();
  const page = session.addPage(3, 'created', 'http://127.0.0.1:8080/big.html', 'Big page');
  session.select(3);
  worker.owners.set(3, session.id);
  return { session, worker, page, tool: 'take_snapshot', sessionById: (id) => (id === session.id ? session : undefined) };
}

/** One session owning every fourth tab, another session the rest: the filter drops three lines in four. */
export function pageListContext(tabs: number): () => RewriteContext {
  return () => {
    const mine = new Session('sess-00000000abcd1234', 'abcd1234', null, 0, Date.now());
    const other = new Session('sess-00000000ffff0000', 'ffff0000', null, 0, Date.now());
    const worker = newWorker();
    for (let id = 1; id <= tabs; id++) {
      const owner = id % 4 === 0 ? mine : other;
      owner.addPage(id, 'created', `http://127.0.0.1:8080/page-${id}.html`, `Tab ${id}`);
      worker.owners.set(id, owner.id);
    }
    mine.select(4);
    const sessions = new Map([mine, other].map((session) => [session.id, session]));
    return { session: mine, worker, page: undefined, tool: 'list_pages', sessionById: (id) => sessions.get(id) };
  };
}

function newWorker(): Worker {
  return new Worker(0, 1, {
    isPaused: () => false,
    onChange: () => undefined,
    start: () => Promise.reject(new Error('the micro-benchmark never starts an upstream')),
  });
}
