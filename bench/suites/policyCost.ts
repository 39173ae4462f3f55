import { PolicySet } from '../../electron/core/router/PolicySet.js';
import type { PolicyRule } from '../../shared/policy.js';
import type { BenchContext } from '../lib/BenchContext.js';
import { comparePairs } from '../lib/interleave.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { noisyMissReason, timed } from '../lib/stats.js';
import { okText, QUICK_EVAL } from '../lib/toolCalls.js';

const WARM_UP = 5;
const PAIRS = 80;
const RULES = 50;
const DIRECT_CHECKS = 200_000;

/**
 * Fifty rules a call must be checked against and none of which matches it: half about the tool itself (confirm and
 * deny rules on other sites, so every one is tried), half about other tools.
 */
function fiftyRules(): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (let index = 0; index < RULES; index++) {
    const own = index % 2 === 0;
    rules.push({
      id: `pol-${index.toString(16).padStart(6, '0')}`,
      tools: own ? ['evaluate_script'] : ['click', 'fill', 'navigate_page'],
      url: index % 4 === 0 ? `*.site-${index}.example` : `https://shop-${index}.example/checkout*`,
      action: index % 3 === 0 ? 'deny' : 'confirm',
    });
  }
  return rules;
}

/**
 * The cost of policy checks on calls no rule matches: the smallest real call (`evaluate_script () => 1`) with 50
 * rules in force against the same call with none, in interleaved pairs on one session; and the check alone.
 */
export async function policyCost(context: BenchContext): Promise<Row[]> {
  context.log('policy cost: evaluate_script round trips with 50 rules that do not match vs none');
  const router = context.tabmux.daemon.router;
  const session = await context.tabmux.session('bench-policies');
  const rules = fiftyRules();
  const call = (policies: readonly PolicyRule[]) => async (): Promise<number> => {
    router.setPolicies(policies);
    return timed(async () => okText(await session.call('evaluate_script', QUICK_EVAL), 'evaluate_script'));
  };
  const { figure, baseline, pairs } = await comparePairs(WARM_UP, PAIRS, call(rules), call([]));
  router.setPolicies([]);

  const set = new PolicySet(rules);
  const started = performance.now();
  let refused = 0;
  for (let index = 0; index < DIRECT_CHECKS; index++) {
    refused += set.check('evaluate_script', 'https://www.example.com/account/settings?tab=1') ? 1 : 0;
  }
  const checkUs = ((performance.now() - started) * 1000) / DIRECT_CHECKS;
  if (refused > 0) {
    throw new Error('a bench rule matched the call it should not');
  }
  const limit = 1.01;
  return [
    {
      name: 'policy check, 50 rules',
      figure,
      baseline,
      unit: 'ms',
      ratio: ratio(figure, baseline),
      goal: { kind: 'max', limit },
      note: `evaluate_script \`() => 1\` on a session bound on the daemon's Unix socket, ${PAIRS} interleaved pairs after ${WARM_UP} warm-up calls each. Figure: ${RULES} policy rules in force (${RULES / 2} about evaluate_script on other sites, confirm and deny, all tried; ${RULES / 2} about other tools), none matching. Baseline: no rules. The check alone, timed directly over ${DIRECT_CHECKS} calls: ${checkUs.toFixed(2)} µs per call (${((checkUs / 1000 / baseline.median) * 100).toFixed(3)}% of the baseline call).`,
      why: noisyMissReason(pairs, limit, `The check itself costs ${checkUs.toFixed(2)} µs of a ${baseline.median.toFixed(1)} ms call.`),
    },
  ];
}
