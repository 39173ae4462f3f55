import type { Page } from '@playwright/test';
import { expect, test } from './dashboardFixture.js';

test.describe.configure({ mode: 'serial' });

/** A page painted one solid colour that records where it was clicked and holds a text field over its top left. */
function paintedPage(colour: string): string {
  const html =
    `<!doctype html><title>Painted ${colour}</title><body style="margin:0;height:100vh;background:${colour}">` +
    `<input id="field" style="position:fixed;left:0;top:0;width:50vw;height:50vh;border:0;background:transparent">` +
    `<script>window.clicks=[];addEventListener('click',e=>clicks.push([e.clientX,e.clientY]))</script>`;
  return `data:text/html,${encodeURIComponent(html)}`;
}

const RED = 'rgb(255,0,0)';
const BLUE = 'rgb(0,0,255)';

let sessionId = '';

/**
 * The colour at three quarters across and down a picture (clear of the page's text field), read from its canvas's
 * pixels in the page; undefined before the first frame. The script is a string: this code has no DOM types.
 */
function readPixel(testId: string): string {
  return `(() => {
    const canvas = document.querySelector('[data-testid="${testId}"]');
    if (!canvas || canvas.dataset.frames === '0') return null;
    const x = Math.floor(canvas.width * 0.75);
    const y = Math.floor(canvas.height * 0.75);
    return Array.from(canvas.getContext('2d').getImageData(x, y, 1, 1).data).slice(0, 3);
  })()`;
}

async function colourAt(page: Page, testId: string): Promise<[number, number, number] | undefined> {
  const value: unknown = await page.evaluate(readPixel(testId));
  if (!Array.isArray(value)) {
    return undefined;
  }
  const channels: unknown[] = value;
  const [r, g, b] = channels;
  return typeof r === 'number' && typeof g === 'number' && typeof b === 'number' ? [r, g, b] : undefined;
}

/** Whether a colour is close to the one painted (JPEG shifts colours a little). */
function near(colour: [number, number, number] | undefined, expected: [number, number, number]): boolean {
  return colour !== undefined && colour.every((channel, index) => Math.abs(channel - (expected[index] ?? 0)) < 40);
}

async function openDashboard(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId('profile-item-default')).toHaveAttribute('data-state', 'ready');
}

test.afterAll(async ({ stack }) => {
  if (sessionId) {
    await stack.cli(['session', 'close', '--session', sessionId]);
  }
});

test("a session's picture shows its tab's colour, and follows the agent to a page of another colour", async ({ page, stack }) => {
  const created = await stack.cli(['session', 'create', '--label', 'painter']);
  expect(created.code, created.stderr).toBe(0);
  sessionId = created.stdout.trim();
  const opened = await stack.cli(['mcp', 'call', '--session', sessionId, 'new_page', JSON.stringify({ url: paintedPage(RED) })]);
  expect(opened.code, opened.stderr).toBe(0);

  await openDashboard(page, stack.url);
  await expect(page.getByTestId(`session-picture-${sessionId}`)).toBeVisible();
  await expect.poll(async () => near(await colourAt(page, `session-picture-${sessionId}`), [255, 0, 0]), { message: 'the picture shows red' }).toBe(true);

  const navigated = await stack.cli(['mcp', 'call', '--session', sessionId, 'navigate_page', JSON.stringify({ url: paintedPage(BLUE) })]);
  expect(navigated.code, navigated.stderr).toBe(0);
  await expect.poll(async () => near(await colourAt(page, `session-picture-${sessionId}`), [0, 0, 255]), { message: 'the picture turns blue' }).toBe(true);
});

test('a click and typing in the live view during takeover reach the page, and the agent sees them after hand-back', async ({ page, stack }) => {
  await openDashboard(page, stack.url);
  await page.getByTestId(`session-picture-${sessionId}-open`).click();
  const live = page.getByTestId('live-view');
  await expect(live).toBeVisible();
  await expect(page.getByTestId('live-title')).toContainText('Painted');
  const picture = page.getByTestId('live-picture');
  await expect.poll(async () => near(await colourAt(page, 'live-picture'), [0, 0, 255])).toBe(true);
  await expect(page.getByTestId('live-surface')).toHaveAttribute('data-controlling', 'no');

  await page.getByTestId('live-take-over').click();
  await expect(page.getByTestId('live-session-state')).toHaveText('paused');
  await expect(page.getByTestId('live-surface')).toHaveAttribute('data-controlling', 'yes');
  const box = await picture.boundingBox();
  if (!box) {
    throw new Error('the live picture has no box');
  }
  await page.mouse.click(box.x + box.width * 0.25, box.y + box.height * 0.25);
  await page.keyboard.type('hi there');

  await page.getByTestId('live-hand-back').click();
  await expect(page.getByTestId('live-session-state')).not.toHaveText('paused');
  const seen = await stack.cli([
    'mcp',
    'call',
    '--session',
    sessionId,
    'evaluate_script',
    JSON.stringify({ function: '() => JSON.stringify({ clicks: window.clicks, field: document.getElementById("field").value, w: innerWidth, h: innerHeight })' }),
  ]);
  expect(seen.code, seen.stderr).toBe(0);
  expect(seen.stdout).toContain('the user took over its tab');
  const json = /\{\\?"clicks.*\}/.exec(seen.stdout)?.[0].replaceAll('\\"', '"') ?? '{}';
  const state = JSON.parse(json) as { clicks: [number, number][]; field: string; w: number; h: number };
  expect(state, seen.stdout).toMatchObject({ field: 'hi there' });
  expect(state.clicks).toHaveLength(1);
  const [x = 0, y = 0] = state.clicks[0] ?? [];
  // Where the person clicked on the scaled picture, in the page's own pixels (within a few pixels of rounding).
  expect(Math.abs(x - state.w * 0.25)).toBeLessThan(state.w * 0.02 + 2);
  expect(Math.abs(y - state.h * 0.25)).toBeLessThan(state.h * 0.02 + 2);
  await page.getByTestId('live-close').click();
  await expect(live).toHaveCount(0);
});
