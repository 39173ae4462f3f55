import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Logger } from '../../electron/core/platform/Logger.js';
import { UpstreamClient } from '../../electron/core/upstream/UpstreamClient.js';
import { matchSnapshot } from '../../electron/core/upstream/snapshotMatch.js';
import { isSnapshotNode, renderSnapshot } from '../../electron/core/upstream/snapshotText.js';
import { readUpstreamReply } from '../../electron/core/upstream/upstreamReply.js';
import { isRecord } from '../../shared/isRecord.js';
import { textOf } from '../../shared/toolResult.js';
import { HostileServer } from '../helpers/hostileServer.js';
import { startUserChromium, type UserChromium } from '../helpers/userChromium.js';

/**
 * tabmux reads a snapshot's text against its tree (electron/core/upstream/snapshotMatch.ts), and asks upstream's own
 * formatter only where that finds no match. Here the real chrome-devtools-mcp snapshots a page with most of what a
 * page can put in its accessibility tree, plainly and verbosely, and the reply's text is read as the tree's, the
 * same as upstream's formatter renders it: the quick path is the one taken on real pages, not the fallback.
 */

/** Roles, states and properties of many kinds, names with whitespace, quotes and text that looks like a snapshot's. */
const PAGE = `
<h1>Shop &amp; "quotes"</h1>
<nav aria-label="Main"><a href="#a">Home</a> <a href="#b">  Spaced   link  </a> <a href="#c">uid=1_2 button "x"</a></nav>
<main>
  <button disabled>Disabled</button>
  <button aria-pressed="true">Pressed</button>
  <button aria-expanded="false" aria-haspopup="menu">Menu</button>
  <details open><summary>More</summary><p>Inside details</p></details>
  <label>Name <input value="  Señor ✓ " required></label>
  <label>Notes <textarea>line one
line two</textarea></label>
  <label><input type="checkbox" checked> Agree</label>
  <label><input type="checkbox" aria-checked="mixed"> Partly</label>
  <fieldset><legend>Size</legend><label><input type="radio" name="s" checked> S</label><label><input type="radio" name="s"> M</label></fieldset>
  <select aria-label="Colour"><option>Red</option><option selected>Green</option><option value="b">Blue</option></select>
  <select multiple aria-label="Tags"><option selected>one</option><option>two</option></select>
  <input type="range" min="0" max="10" value="3" aria-label="Volume">
  <progress value="40" max="100" aria-label="Load"></progress>
  <div role="slider" aria-valuenow="5" aria-valuemin="0" aria-valuemax="9" aria-valuetext="five" tabindex="0" aria-label="Custom"></div>
  <div role="tablist"><div role="tab" aria-selected="true" tabindex="0">One</div><div role="tab" aria-selected="false" tabindex="-1">Two</div></div>
  <ul><li>Item <b>bold</b> text</li><li aria-level="2">Levelled</li></ul>
  <table><caption>Prices</caption><tr><th>Item</th><th>Cost</th></tr><tr><td>Tea</td><td>2</td></tr></table>
  <img alt="A picture" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
  <div role="dialog" aria-modal="true" aria-label="Modal"><p>Hello</p></div>
  <div role="alert">Alert text</div>
  <a href="#d" aria-describedby="desc" aria-keyshortcuts="Alt+D">Described</a><span id="desc">the description</span>
  <div contenteditable="true" aria-multiline="true" role="textbox" aria-label="Editor">Edit me</div>
  <span aria-hidden="true">hidden</span>
  <div role="none"><span>in none</span></div>
</main>`;

const logger = Logger.silent();
let chromium: UserChromium;
let server: HostileServer;
let upstream: UpstreamClient;
let pageId: number;
const scratch = mkdtempSync(join(tmpdir(), 'tmx-print-'));

describe("snapshot text read against its tree, on a real page", () => {
  beforeAll(async () => {
    chromium = await startUserChromium();
    server = await HostileServer.start();
    upstream = await UpstreamClient.start({ endpoint: { kind: 'browserUrl', url: chromium.url }, logger, tempDir: scratch });
    // tabmux runs upstream with page ids: every page-scoped call names its page.
    const pages = (await upstream.callTool('list_pages', {})).structuredContent?.['pages'];
    const first: unknown = Array.isArray(pages) ? pages[0] : undefined;
    pageId = isRecord(first) && typeof first['id'] === 'number' ? first['id'] : -1;
    const opened = await upstream.callTool('navigate_page', { pageId, type: 'url', url: server.page(PAGE, 'Shop "x" uid=1_1') });
    expect(opened.isError, textOf(opened)).not.toBe(true);
  }, 60_000);

  afterAll(async () => {
    await upstream.close();
    await server.close();
    chromium.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  for (const verbose of [false, true]) {
    it(`${verbose ? 'a verbose' : 'a plain'} snapshot: the reply's text is read as its tree's, as upstream's formatter renders it`, async () => {
      const result = await upstream.callTool('take_snapshot', verbose ? { pageId, verbose: true } : { pageId });
      expect(result.isError, textOf(result)).not.toBe(true);
      const text = textOf(result);
      const structured = result.structuredContent;
      const root = isRecord(structured) ? structured['snapshot'] : undefined;
      if (!isSnapshotNode(root)) {
        throw new Error(`take_snapshot gave no snapshot tree: ${JSON.stringify(structured).slice(0, 200)}`);
      }
      const matched = matchSnapshot(root, verbose, text);
      expect(matched?.text).toBe(renderSnapshot(root, verbose).text);
      expect(text.endsWith(`## Latest page snapshot\n${matched?.text ?? 'none'}`)).toBe(true);
      // The page put its text where a reader must not be fooled: it is in the reply, and read as upstream wrote it.
      expect(text).toContain('"uid=1_2 button "x""');
      expect(matched?.treeIds.length).toBeGreaterThan(40);
      const reply = readUpstreamReply(text, structured);
      expect(reply.rebuilt).toBe(false);
    });
  }
});
