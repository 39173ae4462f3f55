import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from './dashboardFixture.js';

test.describe.configure({ mode: 'serial' });

const SLOW_SCRIPT = JSON.stringify({ function: "async () => { await new Promise((r) => setTimeout(r, 3000)); return 'slept'; }", waitForStableDom: false });
const HUMAN_TAB = `data:text/html,${encodeURIComponent('<!doctype html><title>Human login</title><h1>Sign in</h1>')}`;

let sessionId = '';

async function openDashboard(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId('profile-item-default')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('profile-pane-default')).toBeVisible();
}

async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

/** Page ids in a list_pages answer (`## Pages` then `ID: URL`). */
function pageIds(text: string): number[] {
  const section = text.split('## Pages')[1] ?? '';
  return [...section.matchAll(/^(\d+): /gm)].map((match) => Number(match[1]));
}

/** The queue's rows of the session's calls to `tool`: the dashboard's own calls (internal rows) are not the session's. */
function callRows(page: Page, tool: string) {
  return page.locator('[data-testid^="queue-row-"]').filter({ has: page.locator(`td[title="${sessionId}"]`) }).filter({ hasText: tool });
}

test('a session an agent creates through the CLI appears without a reload', async ({ page, stack }, testInfo) => {
  await openDashboard(page, stack.url);
  await expect(page.getByTestId('sessions-empty')).toBeVisible();
  const created = await stack.cli(['session', 'create', '--label', 'agent-one']);
  expect(created.code, created.stderr).toBe(0);
  sessionId = created.stdout.trim();
  const row = page.getByTestId(`session-row-${sessionId}`);
  await expect(row).toBeVisible();
  await expect(row).toContainText('agent-one');
  await snap(page, testInfo, 'session-appears');
});

test('a slow call shows in the queue while it runs and leaves when done', async ({ page, stack }, testInfo) => {
  await openDashboard(page, stack.url);
  const call = stack.cliInBackground(['mcp', 'call', '--session', sessionId, 'evaluate_script', SLOW_SCRIPT]);
  const queued = callRows(page, 'evaluate_script');
  await expect(queued).toBeVisible();
  await expect(queued).toHaveAttribute('data-state', 'running');
  await expect(page.getByTestId(`session-activity-${sessionId}`)).toHaveText('busy');
  await snap(page, testInfo, 'queue-running');
  const result = await call.done;
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain('slept');
  await expect(queued).toHaveCount(0);
  await expect(page.getByTestId('queue-empty')).toBeVisible();
});

test('attaching an unowned tab and releasing it shows in the UI and in list_pages', async ({ page, stack }, testInfo) => {
  await openDashboard(page, stack.url);
  await page.getByTestId('open-tab-button').click();
  await page.getByTestId('open-tab-input').fill(HUMAN_TAB);
  await page.getByTestId('open-tab-submit').click();
  const human = page.locator('[data-testid^="tab-row-"]').filter({ hasText: 'Human login' });
  await expect(human).toBeVisible();
  await expect(human).toHaveAttribute('data-owner', '');
  const pageId = Number(await human.getAttribute('data-page-id'));

  await page.getByTestId(`tab-attach-${pageId}`).selectOption(sessionId);
  await expect(human).toHaveAttribute('data-owner', sessionId);
  await expect(page.getByTestId(`tab-owner-${pageId}`)).toContainText('agent-one');
  const attached = await stack.cli(['mcp', 'call', '--session', sessionId, 'list_pages']);
  expect(attached.code, attached.stderr).toBe(0);
  expect(pageIds(attached.stdout)).toContain(pageId);
  await snap(page, testInfo, 'tab-attached');

  await page.getByTestId(`tab-release-${pageId}`).click();
  await expect(human).toHaveAttribute('data-owner', '');
  await expect(page.getByTestId(`tab-owner-${pageId}`)).toHaveText('unowned');
  const released = await stack.cli(['mcp', 'call', '--session', sessionId, 'list_pages']);
  expect(released.code, released.stderr).toBe(0);
  expect(pageIds(released.stdout)).not.toContain(pageId);
});

test('pausing a session holds its next call until it is resumed', async ({ page, stack }, testInfo) => {
  await openDashboard(page, stack.url);
  await page.getByTestId(`session-pause-${sessionId}`).click();
  await expect(page.getByTestId(`session-activity-${sessionId}`)).toHaveText('paused');

  const call = stack.cliInBackground(['mcp', 'call', '--session', sessionId, 'list_pages']);
  const held = callRows(page, 'list_pages');
  await expect(held).toHaveAttribute('data-state', 'queued');
  await page.waitForTimeout(1500);
  expect(call.finished()).toBe(false);
  await snap(page, testInfo, 'session-paused');

  await page.getByTestId(`session-resume-${sessionId}`).click();
  const result = await call.done;
  expect(result.code, result.stderr).toBe(0);
  await expect(page.getByTestId(`session-activity-${sessionId}`)).toHaveText('idle');
  await expect(held).toHaveCount(0);
});

test("debug mode shows upstream's selected page next to the session's current page", async ({ page, stack }, testInfo) => {
  await openDashboard(page, stack.url);
  const current = await stack.cli(['session', 'page', '--session', sessionId, '--json']);
  expect(current.code, current.stderr).toBe(0);
  const { pageId } = JSON.parse(current.stdout) as { pageId: number | null };
  expect(pageId).not.toBeNull();

  await page.getByTestId('debug-toggle').check();
  await expect(page.getByTestId('debug-panel')).toBeVisible();
  await expect(page.getByTestId('debug-selected-0')).not.toHaveText('none');
  await expect(page.getByTestId(`debug-session-${sessionId}`)).toContainText(`page ${String(pageId)}`);
  // The daemon reads its workers' memory every few seconds; the worker's card shows it.
  await expect(page.getByTestId('debug-memory-0')).toHaveText(/^ · \d+ MiB$/, { timeout: 20_000 });
  // The pane scrolls inside the window, so a full-page shot would cut the panel off.
  await page.getByTestId('debug-panel').scrollIntoViewIfNeeded();
  await snap(page, testInfo, 'debug-mode');
});

test('the access token stays in the tab that opened the link: a reload keeps working, another tab of the same browser gets nothing', async ({ page, context, stack }, testInfo) => {
  const link = new URL(stack.url);
  // The token rides in the fragment, which the browser never sends to the server.
  expect(link.hash).toMatch(/^#token=./);
  expect(link.search).toBe('');
  await openDashboard(page, stack.url);
  expect(page.url()).not.toContain('token');
  await page.reload();
  await expect(page.getByTestId('profile-item-default')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId(`session-row-${sessionId}`)).toBeVisible();

  // Same browser, same cookies and origin, but not the tab the link was opened in.
  const other = await context.newPage();
  await other.goto(`${link.origin}/`);
  await expect(other.getByText(/This tab has no access token/).first()).toBeVisible();
  await expect(other.getByTestId('profile-item-default')).toHaveCount(0);
  await snap(other, testInfo, 'no-token');
  await other.close();
});
