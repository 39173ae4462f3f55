import type { Locator, Page, TestInfo } from '@playwright/test';
import { expect, test, type TabmuxStack } from './dashboardFixture.js';

/**
 * The dashboard as a person uses it day to day: on a small screen, with several workers, while agents work, and
 * reading back what they did. Every test saves screenshots (attached to the report) of what it checked.
 */
test.describe.configure({ mode: 'serial' });

const SLOW_SCRIPT = JSON.stringify({ function: "async () => { await new Promise((r) => setTimeout(r, 4000)); return 'slept'; }", waitForStableDom: false });
const page1 = (title: string): string => `data:text/html,${encodeURIComponent(`<!doctype html><title>${title}</title><h1>${title}</h1>`)}`;

async function openDashboard(page: Page, url: string, profile = 'default'): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId(`profile-item-${profile}`)).toHaveAttribute('data-state', 'ready');
  await page.getByTestId(`profile-select-${profile}`).click();
  await expect(page.getByTestId(`profile-pane-${profile}`)).toBeVisible();
}

async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

/** The control is on screen from left to right (scrolled into view vertically if need be): nothing cuts it off. */
async function expectWithinWidth(page: Page, locator: Locator): Promise<void> {
  await locator.scrollIntoViewIfNeeded();
  await expect(locator).toBeVisible();
  const box = await locator.boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  expect(box, 'the control has a box').not.toBeNull();
  if (box) {
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(width);
  }
}

/** The control is wholly inside the window, both ways. */
async function expectInViewport(page: Page, locator: Locator): Promise<void> {
  await expect(locator).toBeVisible();
  const box = await locator.boundingBox();
  const size = page.viewportSize() ?? { width: 0, height: 0 };
  expect(box, 'the control has a box').not.toBeNull();
  if (box) {
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(size.width);
    expect(box.y + box.height).toBeLessThanOrEqual(size.height);
  }
}

async function newSession(stack: TabmuxStack, label: string, profile = 'default'): Promise<string> {
  const created = await stack.cli(['session', 'create', '--profile', profile, '--label', label]);
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim();
}

test('at 800x600 nothing is cut off: the header, the panels and every row action are reachable', async ({ page, stack }, testInfo) => {
  const id = await newSession(stack, 'narrow-agent');
  const opened = await stack.cli(['mcp', 'call', '--session', id, 'new_page', JSON.stringify({ url: page1('Narrow page') })]);
  expect(opened.code, opened.stderr).toBe(0);
  await page.setViewportSize({ width: 800, height: 600 });
  await openDashboard(page, stack.url);
  const row = page.getByTestId(`session-row-${id}`);
  await expect(row).toContainText('Narrow page');

  // Nothing is wider than the window: the page never scrolls sideways.
  // A string: this code has no DOM types.
  const overflow: unknown = await page.evaluate(
    "[...document.querySelectorAll('.main, .pane, .panel, .table-wrap')].filter((element) => element.scrollWidth > element.clientWidth + 1).map((element) => element.className)",
  );
  expect(overflow).toEqual([]);
  await expectWithinWidth(page, page.getByTestId('profile-restart'));
  await expectWithinWidth(page, page.getByTestId('debug-toggle'));
  await expectWithinWidth(page, page.getByTestId('new-session-button'));
  await expectWithinWidth(page, page.getByTestId(`session-call-${id}`));
  await expectWithinWidth(page, page.getByTestId('open-tab-button'));
  const tabRows = page.locator('[data-testid^="tab-row-"]');
  for (const tabRow of await tabRows.all()) {
    await expectWithinWidth(page, tabRow.locator('.row-actions > *').first());
  }
  await expect(page.getByTestId('sessions-table')).toHaveAttribute('data-layout', 'narrow');
  const menu = page.getByTestId(`session-actions-${id}`);
  await expectWithinWidth(page, menu);
  await page.evaluate("document.querySelector('.main').scrollTo(0, 0)");
  await snap(page, testInfo, 'narrow-800x600');

  // The row's actions are in its menu, each one wholly on screen.
  await menu.click();
  for (const action of ['pause', 'front', 'release', 'history', 'close']) {
    await expectInViewport(page, page.getByTestId(`session-${action}-${id}`));
  }
  await snap(page, testInfo, 'narrow-800x600-row-menu');
  await page.getByTestId(`session-pause-${id}`).click();
  await expect(page.getByTestId(`session-actions-${id}-items`)).toHaveCount(0);
  await expect(row).toHaveAttribute('data-activity', 'paused');
  await menu.click();
  await page.getByTestId(`session-resume-${id}`).click();
  await expect(row).toHaveAttribute('data-activity', 'idle');

  // Closing asks for a second click, so the menu stays open for it.
  await menu.click();
  await page.getByTestId(`session-close-${id}`).click();
  await expect(page.getByTestId(`session-close-${id}`)).toHaveText('Close?');
  await page.getByTestId(`session-close-${id}`).click();
  await expect(row).toHaveCount(0);
});

test('on a laptop-sized window every column of the session list shows, and the current tab keeps room for its title', async ({ page, stack }, testInfo) => {
  const id = await newSession(stack, 'laptop-agent');
  const opened = await stack.cli(['mcp', 'call', '--session', id, 'new_page', JSON.stringify({ url: page1('Order history') })]);
  expect(opened.code, opened.stderr).toBe(0);
  await page.setViewportSize({ width: 1400, height: 860 });
  await openDashboard(page, stack.url);
  await expect(page.getByTestId('sessions-table')).toHaveAttribute('data-layout', 'wide');
  const title = page.getByTestId(`session-row-${id}`).locator('.cell-page .cell-main');
  await expect(title).toHaveText('Order history');
  // The title is not cut short: the cell is as wide as its text needs.
  // A string: this code has no DOM types.
  const cut: unknown = await page.evaluate(`(() => {
    const element = document.querySelector('[data-testid="session-row-${id}"] .cell-page .cell-main');
    return element === null ? null : element.scrollWidth > element.clientWidth;
  })()`);
  expect(cut).toBe(false);
  await snap(page, testInfo, 'wide-1400x860');
  expect((await stack.cli(['session', 'close', '--session', id])).code).toBe(0);
});

test('the session list shows what each session runs now, and else its last call and what became of it', async ({ page, stack }, testInfo) => {
  const id = await newSession(stack, 'caller');
  await openDashboard(page, stack.url);
  const cell = page.getByTestId(`session-call-${id}`);
  await expect(cell).toHaveAttribute('data-call', 'none');
  await expect(cell).toContainText('no calls yet');

  const slow = stack.cliInBackground(['mcp', 'call', '--session', id, 'evaluate_script', SLOW_SCRIPT]);
  await expect(cell).toHaveAttribute('data-call', 'running');
  await expect(cell).toContainText('evaluate_script');
  await expect(cell).toContainText(/running for \d/);
  await snap(page, testInfo, 'call-running');
  expect((await slow.done).code).toBe(0);
  await expect(cell).toHaveAttribute('data-call', 'last');
  await expect(cell.locator('[data-outcome]')).toHaveAttribute('data-outcome', 'ok');

  const refused = await stack.cli(['mcp', 'call', '--session', id, 'navigate_page', JSON.stringify({ url: 'chrome://version' })]);
  expect(refused.code).toBe(1);
  await expect(cell).toContainText('navigate_page');
  await expect(cell.locator('[data-outcome]')).toHaveAttribute('data-outcome', 'rejected');
  await expect(cell).toContainText(/just now|s ago/);
  await snap(page, testInfo, 'call-last');
  expect((await stack.cli(['session', 'close', '--session', id])).code).toBe(0);
});

test('History is a view of its own: newest first, following new calls, filtered by session, tool and outcome', async ({ page, stack }, testInfo) => {
  const reader = await newSession(stack, 'reader');
  const writer = await newSession(stack, 'writer');
  const call = async (session: string, tool: string, args: Record<string, unknown> = {}): Promise<void> => {
    await stack.cli(['mcp', 'call', '--session', session, tool, JSON.stringify(args)]);
  };
  await call(reader, 'new_page', { url: page1('Reading') });
  await call(writer, 'new_page', { url: page1('Writing') });
  await call(reader, 'navigate_page', { url: 'chrome://version' });
  await call(writer, 'list_pages');

  await openDashboard(page, stack.url);
  await page.getByTestId('view-history').click();
  await expect(page.getByTestId('view-history')).toHaveAttribute('aria-selected', 'true');
  // The sessions are not under it: it is the view.
  await expect(page.getByTestId('sessions-panel')).toHaveCount(0);
  const panel = page.getByTestId('timeline-panel');
  const rows = panel.getByTestId('timeline-row');
  await expect(rows.first()).toContainText('list_pages');
  await expect(rows.first()).toContainText('writer');
  await expect(rows.nth(1)).toContainText('navigate_page');
  await expect(rows.nth(1)).toContainText('reader');

  // A call made while it is open comes in at the top.
  await call(reader, 'take_snapshot');
  await expect(rows.first()).toContainText('take_snapshot');
  await expect(rows.first()).toContainText('reader');
  await snap(page, testInfo, 'history-all');

  await page.getByTestId('history-filter-session').selectOption(reader);
  await expect(panel).toContainText('History of reader');
  await expect(rows).toHaveCount(3);
  for (const text of await rows.allTextContents()) {
    expect(text).toContain('reader');
  }
  await page.getByTestId('history-filter-outcome').selectOption('rejected');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('navigate_page');
  await snap(page, testInfo, 'history-filtered');
  await page.getByTestId('history-filter-outcome').selectOption('');
  await page.getByTestId('history-filter-session').selectOption('');
  await page.getByTestId('history-filter-tool').selectOption('new_page');
  // Earlier tests' sessions opened pages too: every row is a new_page, the newest (the writer's) first.
  await expect(rows.first()).toContainText('writer');
  await expect(rows.nth(1)).toContainText('reader');
  for (const text of await rows.allTextContents()) {
    expect(text).toContain('new_page');
  }

  // At 800x600 the filters and the rows' essentials are all on screen.
  await page.setViewportSize({ width: 800, height: 600 });
  for (const filter of ['session', 'tool', 'outcome']) {
    await expectWithinWidth(page, page.getByTestId(`history-filter-${filter}`));
  }
  await expectWithinWidth(page, rows.first().locator('[data-outcome]'));
  await expectWithinWidth(page, page.getByTestId('view-overview'));
  await snap(page, testInfo, 'history-800x600');
  await page.setViewportSize({ width: 1360, height: 860 });

  // With a call's details beside the list, each row's time still takes one line of its fixed-height row.
  await rows.first().click();
  await expect(page.getByTestId('timeline-detail')).toBeVisible();
  // A string: this code has no DOM types. The lines a cell's text takes, by the tops of its line boxes.
  const lines: unknown = await page.evaluate(`[...document.querySelectorAll('[data-testid="timeline-row"] .timeline-time')].map((cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
  })`);
  if (!Array.isArray(lines) || lines.length === 0) {
    throw new Error(`no time cells read: ${JSON.stringify(lines)}`);
  }
  expect(lines.every((count) => count === 1), `lines per time cell: ${lines.join(', ')}`).toBe(true);
  await snap(page, testInfo, 'history-detail');

  // A session's History button opens the view on that session.
  await page.getByTestId('view-overview').click();
  await page.getByTestId(`session-history-${writer}`).click();
  await expect(page.getByTestId('history-filter-session')).toHaveValue(writer);
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('list_pages');

  for (const session of [reader, writer]) {
    expect((await stack.cli(['session', 'close', '--session', session])).code).toBe(0);
  }
});

test('worker and page are labelled in words, and a worker started after the dashboard opened shows as ready', async ({ page, stack }, testInfo) => {
  // A profile whose daemon starts after the dashboard opened, and whose second worker starts after that.
  await openDashboard(page, stack.url);
  const added = await stack.cli(['profile', 'add', 'fresh', '--headless', '--workers', '2']);
  expect(added.code, added.stderr).toBe(0);
  const started = await stack.cli(['daemon', 'start', '--profile', 'fresh']);
  expect(started.code, started.stderr).toBe(0);
  try {
    await expect(page.getByTestId('profile-item-fresh')).toHaveAttribute('data-state', 'ready');
    await page.getByTestId('profile-select-fresh').click();
    const first = await newSession(stack, 'first', 'fresh');
    const second = await newSession(stack, 'second', 'fresh');
    for (const session of [first, second]) {
      const opened = await stack.cli(['mcp', 'call', '--profile', 'fresh', '--session', session, 'new_page', JSON.stringify({ url: page1(`Page of ${session.slice(5, 9)}`) })]);
      expect(opened.code, opened.stderr).toBe(0);
    }
    const status = await stack.cli(['daemon', 'status', '--profile', 'fresh', '--json']);
    const workers = (JSON.parse(status.stdout) as { workers: { index: number; state: string }[] }).workers;
    const ready = workers.filter((worker) => worker.state === 'ready').length;
    expect(ready).toBeGreaterThanOrEqual(2);
    await expect(page.getByTestId('fact-workers')).toContainText(`${ready}/${workers.length} ready`);
    // Started by daemon start, it runs until it is stopped, and the header says so.
    await expect(page.getByTestId('fact-stops')).toContainText('when stopped');

    // "worker 1" and "page 2", each with a tooltip that says what the number is.
    const secondRow = page.getByTestId(`session-row-${second}`);
    await expect(page.getByTestId(`session-worker-${second}`)).toHaveText(/worker \d+/);
    await expect(page.getByTestId(`session-worker-${second}`)).toHaveAttribute('title', /Upstream worker \d+/);
    await expect(secondRow).not.toContainText(/\bw\d\b/);
    const tabRow = page.locator('[data-testid^="tab-row-"]').filter({ hasText: `Page of ${second.slice(5, 9)}` });
    await expect(tabRow).toContainText(/worker \d+/);
    // The tab's worker is its session's, the one that runs its calls, as the session list says.
    const sessionWorker = /worker (\d+)/.exec((await page.getByTestId(`session-worker-${second}`).textContent()) ?? '')?.[1];
    expect(sessionWorker).toBe('1');
    await expect(tabRow.locator('[data-testid^="tab-worker-"]')).toHaveText(`worker ${sessionWorker ?? ''}`);
    await expect(page.locator('[data-testid^="tab-row-"][data-owner=""] [data-testid^="tab-worker-"]')).toHaveCount(0);
    await expect(tabRow).toContainText(/page \d+/);
    await expect(tabRow.locator('[data-testid^="tab-page-"]')).toHaveAttribute('title', /Upstream page id \d+, in worker \d+'s numbering/);
    await expect(tabRow).not.toContainText(/#\d/);
    await snap(page, testInfo, 'workers-and-labels');
  } finally {
    await stack.cli(['daemon', 'stop', '--profile', 'fresh']);
    await stack.cli(['profile', 'remove', 'fresh']);
  }
});

test("the live view uses the room the window has, at the tab's proportions", async ({ page, stack }, testInfo) => {
  const id = await newSession(stack, 'watched');
  const opened = await stack.cli(['mcp', 'call', '--session', id, 'new_page', JSON.stringify({ url: `data:text/html,${encodeURIComponent('<!doctype html><title>Watched</title><style>html,body{margin:0;height:100%;background:#2a6}</style>')}` })]);
  expect(opened.code, opened.stderr).toBe(0);
  await page.setViewportSize({ width: 1600, height: 1000 });
  await openDashboard(page, stack.url);
  await page.getByTestId(`session-picture-${id}-open`).click();
  const picture = page.getByTestId('live-picture');
  await expect(picture).not.toHaveAttribute('data-frames', '0');
  const measure = async (): Promise<{ shown: { width: number; height: number }; frame: { width: number; height: number }; stage: { width: number; height: number } }> => {
    // The canvas's own pixel size is the frame's; its attributes say it.
    const canvas = { width: Number(await picture.getAttribute('width')), height: Number(await picture.getAttribute('height')) };
    const shown = await picture.boundingBox();
    const stage = await page.locator('.live-stage').boundingBox();
    return { shown: { width: shown?.width ?? 0, height: shown?.height ?? 0 }, frame: canvas, stage: { width: stage?.width ?? 0, height: stage?.height ?? 0 } };
  };
  // It fills the stage one way or the other, and keeps the frame's proportions.
  await expect.poll(async () => {
    const { shown, stage } = await measure();
    return Math.min(stage.width - shown.width, stage.height - shown.height);
  }).toBeLessThanOrEqual(2);
  const { shown, frame, stage } = await measure();
  expect(Math.abs(shown.width / shown.height - frame.width / frame.height)).toBeLessThan(0.02);
  // Most of the window is the picture.
  expect(shown.width * shown.height).toBeGreaterThan(0.45 * 1600 * 1000);
  expect(stage.width).toBeGreaterThan(1600 * 0.75);
  await snap(page, testInfo, 'live-view-1600x1000');

  // A smaller window makes it smaller, not cut off.
  await page.setViewportSize({ width: 800, height: 600 });
  await expect.poll(async () => (await measure()).shown.width).toBeLessThan(600);
  await expectInViewport(page, picture);
  await expectInViewport(page, page.getByTestId('live-close'));
  await expectInViewport(page, page.getByTestId('live-take-over'));
  await snap(page, testInfo, 'live-view-800x600');
  await page.getByTestId('live-close').click();
  expect((await stack.cli(['session', 'close', '--session', id])).code).toBe(0);
});
