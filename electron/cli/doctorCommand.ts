import { runDoctor, type DoctorCheck } from '../core/doctor/doctorChecks.js';
import { ProfileStore } from '../core/profile/ProfileStore.js';
import { stringOption, type Command } from './Command.js';
import { table } from './format.js';

function formatChecks(checks: readonly DoctorCheck[]): string {
  const rows = checks.map((item) => [item.status, item.name, item.message]);
  const lines = [table(rows)];
  const fixes = checks.filter((item) => item.status !== 'ok' && item.fix !== undefined);
  if (fixes.length > 0) {
    lines.push('', 'To do:', ...fixes.map((item) => `  ${item.name}: ${item.fix ?? ''}`));
  }
  const failed = checks.filter((item) => item.status === 'fail').length;
  const warned = checks.filter((item) => item.status === 'warn').length;
  lines.push('', failed > 0 ? `${failed} check(s) failed` : warned > 0 ? `nothing failed; ${warned} warning(s)` : 'everything looks right');
  return lines.join('\n');
}

/** `tabmux doctor`: what a person checks when tabmux does not work, each finding with what to do about it. */
export const doctorCommand: Command = {
  words: ['doctor'],
  usage: 'tabmux doctor [--profile NAME] [--json]',
  summary: 'Check Node, Chrome (version, headless start, sandbox), the folders and their permissions, and running daemons; says what to fix (exit 1 when a check fails)',
  optionHelp: { profile: { text: 'check this profile only', value: 'NAME', default: 'every profile' } },
  examples: ['tabmux doctor', 'tabmux doctor --profile work --json'],
  // A missing profile is one of its findings, not a reason not to run.
  anyProfile: true,
  run: async (context) => {
    const store = new ProfileStore(context.paths);
    const given = stringOption(context.values, 'profile');
    const profiles = given === undefined ? await store.list() : [await store.get(context.profile)];
    const checks = await runDoctor(context.paths, profiles);
    const ok = !checks.some((item) => item.status === 'fail');
    context.stdout(context.json ? JSON.stringify({ ok, checks }, null, 2) : formatChecks(checks));
    return ok ? 0 : 1;
  },
};
