import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { ACTIVITY_FORMAT_VERSION, type ActivityEntry } from '../../shared/activity.js';
import { expect, test } from './dashboardFixture.js';

test.describe.configure({ mode: 'serial' });

/** What a page could hand an agent: markup that would run script if a report ever treated it as HTML. */
const HOSTILE = '<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script>';
const PAGE = `data:text/html,${encodeURIComponent('<!doctype html><title>History page</title><p>hello</p>')}`;

let sessionId = '';

// The stack is shared with the other files this worker runs: leave it without the session made here.
test.afterAll(async ({ stack }) => {
  if (sessionId !== '') {
    await stack.cli(['session', 'close', '--session', sessionId]);
  }
});

async function openDashboard(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId('profile-item-default')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('profile-pane-default')).toBeVisible();
}

test('a session history shows each call with its outcome, live', async ({ page, stack }, testInfo) => {
  await openDashboard(page, stack.url);
  sessionId = (await stack.cli(['session', 'create', '--label', 'historian'])).stdout.trim();
  expect((await stack.cli(['mcp', 'call', '--session', sessionId, 'new_page', JSON.stringify({ url: PAGE })])).code).toBe(0);
  expect((await stack.cli(['mcp', 'call', '--session', sessionId, 'evaluate_script', JSON.stringify({ function: `() => ${JSON.stringify(HOSTILE)}` })])).code).toBe(0);
  expect((await stack.cli(['mcp', 'call', '--session', sessionId, 'navigate_page', JSON.stringify({ url: 'chrome://version' })])).code).toBe(1);

  await page.getByTestId(`session-history-${sessionId}`).click();
  const panel = page.getByTestId('timeline-panel');
  await expect(panel).toContainText('History of historian');
  const rows = panel.getByTestId('timeline-row');
  // Newest first.
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(2)).toContainText('new_page');
  await expect(rows.nth(2).locator('[data-outcome]')).toHaveAttribute('data-outcome', 'ok');
  await expect(rows.nth(0).locator('[data-outcome]')).toHaveAttribute('data-outcome', 'rejected');

  await rows.nth(0).click();
  await expect(page.getByTestId('timeline-detail')).toContainText('url_denied');
  await rows.nth(1).click();
  await expect(page.getByTestId('timeline-detail')).toContainText(HOSTILE);

  // A call made while the history is open joins it, at the top, without a reload.
  expect((await stack.cli(['mcp', 'call', '--session', sessionId, 'list_pages'])).code).toBe(0);
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(0)).toContainText('list_pages');
  expect(await page.evaluate("'__pwned' in window")).toBe(false);
  const shot = testInfo.outputPath('timeline.png');
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach('timeline', { path: shot, contentType: 'image/png' });
});

test('the HTML export is one self-contained file that shows hostile strings as text', async ({ page, stack, browser }, testInfo) => {
  await openDashboard(page, stack.url);
  await page.getByTestId(`session-history-${sessionId}`).click();
  await expect(page.getByTestId('timeline-row')).toHaveCount(4);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('timeline-export-html').click()]);
  const file = testInfo.outputPath('report.html');
  await download.saveAs(file);
  expect(download.suggestedFilename()).toBe(`tabmux-${sessionId}.html`);

  const report = await browser.newPage();
  const requests: string[] = [];
  report.on('request', (request) => {
    if (!request.url().startsWith('file:')) {
      requests.push(request.url());
    }
  });
  let dialogs = 0;
  report.on('dialog', (dialog) => {
    dialogs++;
    void dialog.dismiss();
  });
  await report.goto(`file://${file}`);
  await expect(report.locator('h1')).toContainText(sessionId);
  await expect(report.locator('tbody tr')).toHaveCount(4);
  await expect(report.locator('tr[data-outcome="rejected"]')).toContainText('url_denied');
  await expect(report.locator('body')).toContainText(HOSTILE);
  expect(await report.locator('script').count()).toBe(0);
  // The only images are the report's own pictures of the tab (new_page took one), inline: the page's markup is text.
  const images = await Promise.all((await report.locator('img').all()).map(async (img) => `${(await img.getAttribute('class')) ?? ''} ${((await img.getAttribute('src')) ?? '').slice(0, 22)}`));
  expect(images).toEqual(['shot data:image/jpeg;base64']);
  expect(await report.evaluate("'__pwned' in window")).toBe(false);
  expect(dialogs).toBe(0);
  expect(requests).toEqual([]);
  await report.close();

  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('timeline-export-json').click()]);
  const jsonFile = testInfo.outputPath('report.json');
  await json.saveAs(jsonFile);
  const exported = JSON.parse(readFileSync(jsonFile, 'utf8')) as { format: string; session: string; entries: ActivityEntry[] };
  expect(exported.format).toBe('tabmux-activity');
  expect(exported.entries.map((entry) => entry.tool)).toEqual(['new_page', 'evaluate_script', 'navigate_page', 'list_pages']);

  // The CLI writes the same report.
  const out = testInfo.outputPath('cli-report.html');
  const cli = await stack.cli(['log', '--session', sessionId, '--export', 'html', '--out', out]);
  expect(cli.code, cli.stderr).toBe(0);
  expect(readFileSync(out, 'utf8')).toContain('&#60;img src=x onerror=');
});

test('a history of 10,000 calls draws only the rows in view', async ({ page, stack }) => {
  // An older segment of the log, as months of calls would leave it (segment 0 sorts before the daemon's own).
  const lines: string[] = [];
  const start = Date.now() - 86_400_000;
  for (let n = 0; n < 10_000; n++) {
    const entry: ActivityEntry = {
      v: ACTIVITY_FORMAT_VERSION,
      id: `seed-${n}`,
      session: sessionId,
      label: 'historian',
      tool: n % 3 === 0 ? 'take_snapshot' : 'click',
      args: n % 3 === 0 ? {} : { uid: `u:x:1:1_${n}` },
      redacted: [],
      at: start + n * 1000,
      durationMs: n % 50,
      outcome: n % 7 === 0 ? 'tool_error' : 'ok',
      error: null,
      summary: `call ${n}`,
      pageBefore: null,
      pageAfter: { pageId: 1, url: `https://example.com/${n}` },
      opened: [],
    };
    lines.push(JSON.stringify(entry));
  }
  writeFileSync(join(stack.home, 'data', 'profiles', 'default', 'activity', 'activity-000000.jsonl'), `${lines.join('\n')}\n`, { mode: 0o600 });

  await openDashboard(page, stack.url);
  await page.getByTestId(`session-history-${sessionId}`).click();
  const list = page.getByTestId('timeline-list');
  await expect(list).toHaveAttribute('data-count', '10004');
  const drawn = await page.getByTestId('timeline-row').count();
  expect(drawn).toBeLessThan(60);
  // Newest first: the calls of this run on top, the oldest of the old segment at the bottom.
  await expect(page.getByTestId('timeline-row').first()).toContainText('list_pages');
  await list.hover();
  await page.mouse.wheel(0, 400_000);
  await expect(page.getByTestId('timeline-row').last()).toHaveAttribute('data-entry-id', 'seed-0');
  await expect(page.locator('[data-entry-id="seed-0"]')).toBeVisible();
  expect(await page.getByTestId('timeline-row').count()).toBeLessThan(60);

  // A new call comes in at the top; the rows someone scrolled down to read stay where they are.
  const before = await page.locator('[data-entry-id="seed-0"]').boundingBox();
  expect((await stack.cli(['mcp', 'call', '--session', sessionId, 'list_pages'])).code).toBe(0);
  await expect(list).toHaveAttribute('data-count', '10005');
  await expect(page.locator('[data-entry-id="seed-0"]')).toBeVisible();
  expect((await page.locator('[data-entry-id="seed-0"]').boundingBox())?.y).toBe(before?.y);
});

test('a navigation shows a picture of the tab in the history and in the HTML report', async ({ page, stack }, testInfo) => {
  const red = `data:text/html,${encodeURIComponent('<!doctype html><title>Red</title><style>html,body{margin:0;height:100%;background:#ff0000}</style>')}`;
  expect((await stack.cli(['mcp', 'call', '--session', sessionId, 'navigate_page', JSON.stringify({ url: red })])).code).toBe(0);
  await openDashboard(page, stack.url);
  await page.getByTestId(`session-history-${sessionId}`).click();
  // The newest navigation is at the top.
  const row = page.getByTestId('timeline-row').filter({ hasText: 'navigate_page' }).first();
  await row.click();
  const picture = page.getByTestId('timeline-picture');
  await expect(picture).toBeVisible();
  // The picture's own pixels: JPEG keeps a solid colour close to what the page painted.
  // A string: this code has no DOM types.
  const rgb: unknown = await page.evaluate(`(() => {
    const img = document.querySelector('[data-testid="timeline-picture"]');
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext('2d');
    context.drawImage(img, 0, 0);
    return Array.from(context.getImageData(Math.floor(img.naturalWidth / 2), Math.floor(img.naturalHeight / 2), 1, 1).data).slice(0, 3);
  })()`);
  if (!Array.isArray(rgb) || !rgb.every((value) => typeof value === 'number')) {
    throw new Error(`no pixel read: ${JSON.stringify(rgb)}`);
  }
  expect(rgb[0]).toBeGreaterThan(200);
  expect(rgb[1]).toBeLessThan(60);
  expect(rgb[2]).toBeLessThan(60);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('timeline-export-html').click()]);
  const file = testInfo.outputPath('report-with-picture.html');
  await download.saveAs(file);
  expect(readFileSync(file, 'utf8')).toMatch(/<img class="shot" alt="the tab after navigate_page" src="data:image\/jpeg;base64,[A-Za-z0-9+/]+=*">/);
});

