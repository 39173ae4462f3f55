import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWN_TOOLS } from '../../shared/policy.js';
import { textOf } from '../../shared/toolResult.js';
import { html, startTestDaemon, uidOf, type BoundSession, type TestDaemon } from '../helpers/daemonFixture.js';

/**
 * Every tool an agent sees, called once through tabmux on the Node this runs on. Upstream is written for a newer
 * Node than the oldest tabmux supports; a tool that reaches for a missing built-in (Set.prototype.intersection in
 * get_css_styles, Promise.withResolvers, iterator helpers) fails with a TypeError in its result. Tools may fail for
 * other reasons here (no extension to reload, no dialog open): only a missing part of the runtime fails this test.
 */
let t: TestDaemon;
let s: BoundSession;

const PAGE = html(
  `<style>#box { color: rgb(1, 2, 3); margin: 4px; }</style>
   <h1 id="box">Box</h1>
   <input aria-label="Name"><button onclick="console.log('pressed')">Go</button>
   <input type="file" aria-label="Upload">
   <div draggable="true" role="button" aria-label="Drag me">drag</div><div role="region" aria-label="Drop here">drop</div>`,
  'Every tool',
);

/** What the runtime lacking a built-in looks like in upstream's answer. */
const MISSING_BUILT_IN = /is not a function|is not defined|is not iterable|Cannot read properties of undefined \(reading '(intersection|union|difference|withResolvers|toArray|map|filter|find)'\)/;

beforeAll(async () => {
  t = await startTestDaemon({ workers: 1 });
  s = await t.session('every-tool');
  await s.text('new_page', { url: PAGE });
});

afterAll(async () => {
  await t.stop();
});

describe('every tool on this Node', () => {
  it('get_css_styles reads an element\'s styles', async () => {
    const snapshot = await s.text('take_snapshot');
    const styles = await s.call('get_css_styles', { uid: uidOf(snapshot, 'heading', 'Box') });
    expect(textOf(styles)).not.toMatch(MISSING_BUILT_IN);
    expect(styles.isError).toBeFalsy();
    expect(textOf(styles)).toContain('rgb(1, 2, 3)');
  });

  it('runs every listed tool once without reaching for a missing built-in', async () => {
    const listed = ((await s.client.request('tools/list', {})) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
    // Tokens go stale with every snapshot and navigation: each call that takes uids gets them from a fresh one.
    let snapshot = '';
    const uid = (role: string, name: string): string => uidOf(snapshot, role, name);
    const calls: Record<string, Record<string, unknown> | (() => Record<string, unknown>)> = {
      list_pages: {},
      select_page: { pageId: 1 },
      take_snapshot: {},
      take_screenshot: {},
      get_css_styles: () => ({ uid: uid('heading', 'Box') }),
      click: () => ({ uid: uid('button', 'Go') }),
      hover: () => ({ uid: uid('button', 'Go') }),
      fill: () => ({ uid: uid('textbox', 'Name'), value: 'typed' }),
      fill_form: () => ({ elements: [{ uid: uid('textbox', 'Name'), value: 'form' }] }),
      drag: () => ({ from_uid: uid('button', 'Drag me'), to_uid: uid('region', 'Drop here') }),
      upload_file: () => ({ uid: uid('button', 'Upload'), filePath: 'missing.txt' }),
      type_text: { text: 'abc' },
      press_key: { key: 'Tab' },
      evaluate_script: { function: '() => [...new Set([1, 2]).values()].length' },
      wait_for: { text: ['Box'], timeout: 2000 },
      handle_dialog: { action: 'accept' },
      resize_page: { width: 800, height: 600 },
      emulate: { colorScheme: 'dark' },
      list_console_messages: {},
      get_console_message: { msgid: 1 },
      list_network_requests: {},
      get_network_request: { reqid: 1 },
      navigate_page: { type: 'reload' },
      performance_start_trace: { reload: false, autoStop: false },
      performance_stop_trace: {},
      performance_analyze_insight: { insightSetId: 'none', insightName: 'LCPBreakdown' },
      take_heapsnapshot: { filePath: 'heap.heapsnapshot' },
      screencast_start: {},
      screencast_stop: {},
      lighthouse_audit: { mode: 'snapshot' },
      new_page: { url: 'about:blank' },
      close_page: { pageId: 2 },
      list_extensions: {},
      install_extension: { path: 'no-such-extension' },
      uninstall_extension: { id: 'a'.repeat(32) },
      reload_extension: { id: 'a'.repeat(32) },
      trigger_extension_action: { id: 'a'.repeat(32) },
    };
    // tabmux's own tools never reach upstream, so no built-in of this Node is at stake in them.
    const unknown = listed.filter((name) => !(name in calls) && !OWN_TOOLS.has(name));
    expect(unknown, 'every listed tool has a call in this test').toEqual([]);
    const broken: string[] = [];
    // Tools that change which page is current, or what it shows, go last, after those that need its elements.
    const last = ['navigate_page', 'new_page', 'select_page', 'close_page', 'emulate', 'resize_page', 'lighthouse_audit'];
    const order = [...listed.filter((name) => !last.includes(name)), ...last.filter((name) => listed.includes(name))];
    for (const name of order) {
      if (OWN_TOOLS.has(name)) {
        continue;
      }
      const spec = calls[name];
      if (typeof spec === 'function') {
        snapshot = await s.text('take_snapshot');
      }
      const result = await s.call(name, typeof spec === 'function' ? spec() : spec);
      const text = textOf(result);
      if (MISSING_BUILT_IN.test(text)) {
        broken.push(`${name}: ${text.slice(0, 300)}`);
      }
    }
    expect(broken).toEqual([]);
  }, 240_000);
});
