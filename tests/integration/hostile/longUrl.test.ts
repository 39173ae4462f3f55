import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { profileActivityDir, profileDataDir, resolvePaths } from '../../../electron/core/platform/paths.js';
import { TOPOLOGIES, useHostileRig, type HostileRig } from '../../helpers/hostileRig.js';
import { waitFor } from '../../helpers/waitFor.js';

/**
 * A hostile page gives itself a URL of megabytes (`history.replaceState`, which any page may do to its own address)
 * and a title of thousands of characters. Its own agent still works on it, while what every session shares stays its
 * size: status and the tab list (which every dashboard receives on each change), the activity log (one per profile,
 * kept to a size, where a page must not push out the other sessions' calls) and the session journal. Sizes are read
 * from the daemon's answers and from the disk. An agent's own call with an argument of megabytes (a script) runs as
 * sent, and the log keeps the argument's start.
 */

const LONG = 1_900_000;

function activityBytes(rig: HostileRig): number {
  const dir = profileActivityDir(resolvePaths({ TABMUX_HOME: rig.t.home }), 'default');
  return existsSync(dir) ? readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0) : 0;
}

function journalBytes(rig: HostileRig): number {
  const file = join(profileDataDir(resolvePaths({ TABMUX_HOME: rig.t.home }), 'default'), 'sessions.json');
  return existsSync(file) ? readFileSync(file).length : 0;
}

describe.each(TOPOLOGIES)('a page with a URL of megabytes, on $name', (topology) => {
  const rig = useHostileRig(topology);

  it('works for its own agent, and shows and records only the start of its URL and title for everyone else', async () => {
    const { attacker, victim } = await rig().pair();
    const page = rig().server.page(
      `<script>history.replaceState(null, '', location.pathname + '#' + 'x'.repeat(${LONG})); document.title = 'T'.repeat(3000);</script>`,
      'Long',
    );
    await attacker.text('new_page', { url: page });
    await victim.text('new_page', { url: rig().server.page('<p>neighbour</p>', 'Neighbour') });
    // The browser really holds the whole URL: the page reads it back.
    expect(await attacker.text('evaluate_script', { function: '() => location.href.length' })).toContain(String(page.length + 1 + LONG));
    const before = activityBytes(rig());
    for (let call = 0; call < 5; call++) {
      await attacker.text('evaluate_script', { function: '() => 1' });
    }
    const perCall = (activityBytes(rig()) - before) / 5;
    // An entry names its page before and after the call: a few kilobytes, not the page's megabytes twice.
    expect(perCall).toBeLessThan(16_384);

    const status = await rig().status();
    expect(JSON.stringify(status).length).toBeLessThan(100_000);
    const shown = status.sessions.find((session) => session.id === attacker.id)?.pages[0];
    expect(shown?.url.startsWith(page)).toBe(true);
    expect(shown?.url).toContain(`more characters)`);
    expect(shown?.title.length).toBeLessThan(2100);
    const tabs = await rig().control.call('tabmux/tabs.list', {});
    expect(JSON.stringify(tabs).length).toBeLessThan(100_000);
    await waitFor(() => (journalBytes(rig()) > 0 && journalBytes(rig()) < 100_000 ? true : undefined), 'a session journal of its usual size');

    // The neighbour's calls go on as ever.
    expect(await victim.text('evaluate_script', { function: '() => document.title' })).toContain('Neighbour');
  });
});

describe.each(TOPOLOGIES)('an agent call with an argument of megabytes, on $name', (topology) => {
  const rig = useHostileRig(topology);

  it('runs beside a neighbour who is served meanwhile, and the activity log keeps only the start of the argument', async () => {
    const { attacker, victim } = await rig().pair();
    await attacker.text('new_page', { url: rig().server.page('<p>here</p>', 'Here') });
    await victim.text('new_page', { url: rig().server.page('<p>there</p>', 'There') });
    const before = activityBytes(rig());
    const script = `() => ${JSON.stringify('z'.repeat(LONG))}.length`;
    const big = attacker.text('evaluate_script', { function: script });
    // Logging the call once held the daemon's only thread for minutes (reading the script for URLs took time in the
    // square of its length): everyone's calls waited, and agents were told the daemon stopped answering.
    expect(await victim.text('evaluate_script', { function: '() => document.title' })).toContain('There');
    expect(await big).toContain(String(LONG));
    expect(activityBytes(rig()) - before).toBeLessThan(32_768);
  });
});
