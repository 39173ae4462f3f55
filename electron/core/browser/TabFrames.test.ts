import type { CDPSession } from 'puppeteer-core/internal/api/CDPSession.js';
import { describe, expect, it } from 'vitest';
import type { CdpConnection } from './CdpConnection.js';
import { TabFrames } from './TabFrames.js';

/** A page's CDP session that answers only `Page.getFrameTree`, with one iframe, and takes event listeners. */
function pageSession(iframeId: string): CDPSession {
  const frameTree = { frame: { id: 'main' }, childFrames: [{ frame: { id: iframeId } }] };
  return {
    on: () => undefined,
    send: (method: string) => (method === 'Page.getFrameTree' ? Promise.resolve({ frameTree }) : Promise.reject(new Error(method))),
  } as unknown as CDPSession;
}

/**
 * A connection that knows no page sessions yet, so the lookup's own search of the frame trees finds nothing, and lists
 * these out-of-process iframes (id -> the frame that holds it) as the browser's targets.
 */
function connectionListing(iframes: Record<string, string> = {}): CdpConnection {
  const targetInfos = Object.entries(iframes).map(([targetId, parentFrameId]) => ({ targetId, parentFrameId, type: 'iframe' }));
  return {
    session: () => undefined,
    send: (method: string) => (method === 'Target.getTargets' ? Promise.resolve({ targetInfos }) : Promise.reject(new Error(method))),
  } as unknown as CdpConnection;
}

const connection = connectionListing();

describe('TabFrames.tabOf', () => {
  it('finds a frame in a page reported after the lookup began, whose iframe was made before its events were followed', async () => {
    const frames = new TabFrames(connection, new Map(), new Map());
    const lookup = frames.tabOf('late-iframe', 5_000);
    // The page is reported while the lookup waits; its iframe's attach came before the daemon followed its events.
    frames.watch('tab-1', pageSession('late-iframe'));
    frames.caughtUp('tab-1', pageSession('late-iframe'), 1_000);
    expect(await lookup).toBe('tab-1');
  });

  it('reads no frame tree when no lookup waits', async () => {
    const frames = new TabFrames(connection, new Map(), new Map());
    let asked = 0;
    const session = { on: () => undefined, send: () => ((asked += 1), Promise.resolve({ frameTree: { frame: { id: 'main' } } })) } as unknown as CDPSession;
    frames.caughtUp('tab-1', session, 1_000);
    await Promise.resolve();
    expect(asked).toBe(0);
  });

  it('finds an out-of-process frame, nested in another, through the frames the browser says hold them', async () => {
    const frames = new TabFrames(connectionListing({ 'inner-oopif': 'outer-oopif', 'outer-oopif': 'page-1' }), new Map([['page-1', 'tab-1']]), new Map());
    expect(await frames.tabOf('inner-oopif', 1_000)).toBe('tab-1');
  });

  it('finds an out-of-process frame once the page that holds it is reported', async () => {
    const tabOfPage = new Map<string, string>();
    const frames = new TabFrames(connectionListing({ oopif: 'page-1' }), tabOfPage, new Map());
    const lookup = frames.tabOf('oopif', 5_000);
    await new Promise((resolve) => setTimeout(resolve, 10));
    tabOfPage.set('page-1', 'tab-1');
    frames.found();
    expect(await lookup).toBe('tab-1');
  });

  it('finds a frame inside an out-of-process frame, from that frame’s own tree, and lets go of the session it read it on', async () => {
    const sent: string[] = [];
    const oopifTree = { frame: { id: 'oopif' }, childFrames: [{ frame: { id: 'middle' }, childFrames: [{ frame: { id: 'deep' } }] }] };
    const oopifSession = { send: (method: string) => (method === 'Page.getFrameTree' ? Promise.resolve({ frameTree: oopifTree }) : Promise.reject(new Error(method))) };
    const connection = {
      session: (id: string) => (id === 'oopif-session' ? oopifSession : undefined),
      send: (method: string, params: { targetId?: string }) => {
        sent.push(method);
        if (method === 'Target.getTargets') {
          return Promise.resolve({ targetInfos: [{ targetId: 'oopif', parentFrameId: 'page-1', type: 'iframe' }] });
        }
        if (method === 'Target.attachToTarget' && params.targetId === 'oopif') {
          return Promise.resolve({ sessionId: 'oopif-session' });
        }
        return Promise.resolve({});
      },
    } as unknown as CdpConnection;
    const frames = new TabFrames(connection, new Map([['page-1', 'tab-1']]), new Map());
    expect(await frames.tabOf('deep', 1_000)).toBe('tab-1');
    expect(sent).toContain('Target.detachFromTarget');
  });

  it('gives up on frames that hold each other, or that no page holds', async () => {
    const frames = new TabFrames(connectionListing({ a: 'b', b: 'a', orphan: 'gone' }), new Map(), new Map());
    expect(await frames.tabOf('a', 50)).toBeUndefined();
    expect(await frames.tabOf('orphan', 50)).toBeUndefined();
  });

  it('gives up on a frame no tab holds after its wait', async () => {
    const frames = new TabFrames(connection, new Map(), new Map());
    expect(await frames.tabOf('nobody', 50)).toBeUndefined();
  });
});
