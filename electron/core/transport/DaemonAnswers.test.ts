import { describe, expect, it, vi } from 'vitest';
import { DaemonAnswers } from './DaemonAnswers.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A watch asking every 10 ms with 30 ms to answer, and what it saw. */
function watch(answer: () => Promise<unknown> | undefined): { answers: DaemonAnswers; asked: () => number; unanswered: () => number } {
  let asked = 0;
  let unanswered = 0;
  const answers = new DaemonAnswers({
    ask: () => {
      asked++;
      return answer();
    },
    onUnanswered: () => unanswered++,
    everyMs: 10,
    answerWithinMs: 30,
  });
  return { answers, asked: () => asked, unanswered: () => unanswered };
}

describe('DaemonAnswers', () => {
  it('asks nothing while no call is out', async () => {
    const { asked } = watch(() => new Promise(() => undefined));
    await sleep(60);
    expect(asked()).toBe(0);
  });

  it('gives up on a daemon that leaves a question unanswered while a call is out', async () => {
    const { answers, asked, unanswered } = watch(() => new Promise(() => undefined));
    const back = answers.begin();
    await vi.waitFor(() => expect(unanswered()).toBeGreaterThan(0));
    back();
    // One question at a time: a daemon that does not answer is not asked again meanwhile.
    expect(asked()).toBeLessThanOrEqual(unanswered() + 1);
  });

  it('leaves a daemon that answers, with a result or an error, alone, and stops asking once the calls are back', async () => {
    let turn = 0;
    const { answers, asked, unanswered } = watch(() => (++turn % 2 === 0 ? Promise.resolve({}) : Promise.reject(new Error('closed'))));
    const first = answers.begin();
    const second = answers.begin();
    await vi.waitFor(() => expect(asked()).toBeGreaterThan(1));
    first();
    first();
    const before = asked();
    await vi.waitFor(() => expect(asked()).toBeGreaterThan(before + 1));
    second();
    const after = asked();
    await sleep(60);
    expect(asked()).toBe(after);
    expect(unanswered()).toBe(0);
  });

  it('skips a turn when there is no connection to ask on', async () => {
    const { answers, unanswered } = watch(() => undefined);
    const back = answers.begin();
    await sleep(60);
    back();
    expect(unanswered()).toBe(0);
  });
});
