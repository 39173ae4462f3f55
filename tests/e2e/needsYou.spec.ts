import { expect, test } from './dashboardFixture.js';

test.describe.configure({ mode: 'serial' });

const PAGE = `data:text/html,${encodeURIComponent('<!doctype html><title>Shop</title><body style="background:rgb(0,128,0)"><button onclick="this.textContent=\'Paid\'">Pay</button>')}`;

let sessionId = '';
let policyId = '';

/** The uid token of the snapshot line for a button with this name. */
function buttonUid(snapshot: string, name: string): string {
  const match = new RegExp(`uid=(\\S+) button "${name}"`).exec(snapshot);
  if (!match?.[1]) {
    throw new Error(`no button ${name} in snapshot:\n${snapshot}`);
  }
  return match[1];
}

test.afterAll(async ({ stack }) => {
  // The stack is shared with the other specs: the rule and the session go with this one.
  if (policyId) {
    await stack.cli(['policy', 'remove', policyId]);
  }
  if (sessionId) {
    await stack.cli(['session', 'close', '--session', sessionId]);
  }
});

test('a call a confirm policy holds shows under "Needs you" with its picture, and Approve lets it run', async ({ page, stack }) => {
  sessionId = (await stack.cli(['session', 'create', '--label', 'shopper'])).stdout.trim();
  expect((await stack.cli(['mcp', 'call', '--session', sessionId, 'new_page', JSON.stringify({ url: PAGE })])).code).toBe(0);
  const uid = buttonUid((await stack.cli(['mcp', 'call', '--session', sessionId, 'take_snapshot'])).stdout, 'Pay');
  const added = await stack.cli(['policy', 'add', '--tool', 'click', '--url', '*', '--action', 'confirm', '--reason', 'payments need a yes', '--json']);
  expect(added.code, added.stderr).toBe(0);
  policyId = (JSON.parse(added.stdout) as { id: string }).id;

  await page.goto(stack.url);
  await expect(page.getByTestId('profile-item-default')).toHaveAttribute('data-state', 'ready');
  const click = stack.cliInBackground(['mcp', 'call', '--session', sessionId, 'click', JSON.stringify({ uid })]);

  const needsYou = page.getByTestId('needs-you');
  await expect(needsYou).toBeVisible();
  await expect(needsYou).toContainText('shopper wants to run click');
  await expect(needsYou).toContainText('Allow click on data:text/html');
  // The tab's picture: frames arrive on the canvas.
  const picture = needsYou.locator('[data-testid^="request-picture-"]');
  await expect(picture).toBeVisible();
  await expect(picture).not.toHaveAttribute('data-frames', '0');
  // The agent's call holds its session's connection while it waits (the integration tests check the page meanwhile).
  expect(click.finished()).toBe(false);

  await needsYou.locator('[data-testid^="request-approve-"]').click();
  const result = await click.done;
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain(`a person approved this call (policy ${policyId}) from the dashboard`);
  await expect(needsYou).toHaveCount(0);
  const after = await stack.cli(['mcp', 'call', '--session', sessionId, 'evaluate_script', JSON.stringify({ function: '() => document.querySelector("button").textContent' })]);
  expect(after.stdout).toContain('"Paid"');
  expect((await stack.cli(['policy', 'remove', policyId])).code).toBe(0);
  policyId = '';
});

test('policies are listed, added and removed in the dashboard, as the CLI sees them', async ({ page, stack }) => {
  await page.goto(stack.url);
  await expect(page.getByTestId('profile-item-default')).toHaveAttribute('data-state', 'ready');
  const panel = page.getByTestId('policies-panel');
  await expect(panel).toContainText('No rules');

  await panel.getByTestId('policy-tools').fill('navigate_page,teleport');
  await panel.getByTestId('policy-url').fill('*.blocked.example');
  await panel.getByTestId('policy-add').click();
  await expect(panel.getByTestId('policy-error')).toContainText('unknown tool teleport');

  await panel.getByTestId('policy-tools').fill('navigate_page,new_page');
  await panel.getByTestId('policy-reason').fill('not there');
  await panel.getByTestId('policy-add').click();
  const rule = panel.locator('[data-testid^="policy-pol-"]');
  await expect(rule).toContainText('navigate_page, new_page on *.blocked.example');
  await expect(panel.getByTestId('policy-error')).toHaveCount(0);
  const listed = JSON.parse((await stack.cli(['policy', 'list', '--json'])).stdout) as { id: string; url: string; reason?: string }[];
  expect(listed).toMatchObject([{ url: '*.blocked.example', reason: 'not there' }]);

  await panel.getByTestId(`policy-remove-${listed[0]?.id ?? ''}`).click();
  await expect(panel).toContainText('No rules');
  expect(JSON.parse((await stack.cli(['policy', 'list', '--json'])).stdout)).toEqual([]);

  // A rule added and removed at the CLI shows and goes in the open panel, with no reload.
  const added = await stack.cli(['policy', 'add', '--tool', 'click', '--url', '*.pay.example', '--action', 'confirm', '--json']);
  expect(added.code, added.stderr).toBe(0);
  const fromCli = JSON.parse(added.stdout) as { id: string };
  await expect(panel.getByTestId(`policy-${fromCli.id}`)).toContainText('click on *.pay.example');
  expect((await stack.cli(['policy', 'remove', fromCli.id])).code).toBe(0);
  await expect(panel).toContainText('No rules');
});
