import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../shared/errors.js';
import { parseBatchScript, resolveReferences, type StepOutcome } from './batchScript.js';

const SNAPSHOT = [
  '## Latest page snapshot',
  'uid=u:0123abcd:2:1_0 RootWebArea "Shop" url="https://example.com/"',
  '  uid=u:0123abcd:2:1_1 heading "Welcome" level="1"',
  '  uid=u:0123abcd:2:1_2 textbox "Search products"',
  '  uid=u:0123abcd:2:1_3 button "Go"',
  '  uid=u:0123abcd:2:1_4 link "Say \\"hi\\""',
  '  uid=u:0123abcd:2:1_5 button "Go to cart"',
].join('\n');

const OLDER_SNAPSHOT = 'uid=u:0123abcd:1:1_9 button "Go"';

function failure(run: () => unknown): TabmuxError {
  try {
    run();
  } catch (error) {
    if (error instanceof TabmuxError) {
      return error;
    }
    throw error;
  }
  throw new Error('expected a TabmuxError');
}

describe('parseBatchScript', () => {
  it('accepts steps with optional ids and defaults args to {}', () => {
    expect(parseBatchScript([{ tool: 'take_snapshot', id: 'snap' }, { tool: 'click', args: { uid: 'x' } }])).toEqual([
      { tool: 'take_snapshot', id: 'snap', args: {} },
      { tool: 'click', args: { uid: 'x' } },
    ]);
  });

  it('rejects a script that is not a list of steps, naming the bad field', () => {
    expect(failure(() => parseBatchScript({ tool: 'x' })).code).toBe('invalid_params');
    const missingTool = failure(() => parseBatchScript([{ tool: 'ok' }, { args: {} }]));
    expect(missingTool.message).toMatch(/^batch script: step 2 "tool": /);
    expect(missingTool.message).toContain('expected a JSON list');
    expect(failure(() => parseBatchScript([{ tool: 'x', args: [] }])).message).toContain('step 1 "args": ');
  });
});

describe('resolveReferences', () => {
  const outcomes: StepOutcome[] = [
    { id: 'old', text: OLDER_SNAPSHOT },
    { id: 'snap', text: SNAPSHOT },
    { id: 'tab', text: 'Opened new tab. Tab ID: 42\nurl: https://example.com' },
    { id: undefined, text: 'Clicked.' },
  ];

  it('leaves args without references as they are', () => {
    const args = { url: 'https://example.com', nested: { list: [1, 'two', null] }, flag: true };
    expect(resolveReferences(args, outcomes)).toEqual(args);
  });

  it('resolves $uid by role and exact name from the latest snapshot step', () => {
    expect(resolveReferences({ uid: { $uid: { role: 'button', name: 'Go' } } }, outcomes)).toEqual({ uid: 'u:0123abcd:2:1_3' });
    expect(resolveReferences({ uid: { $uid: { role: 'textbox' } } }, outcomes)).toEqual({ uid: 'u:0123abcd:2:1_2' });
    expect(resolveReferences({ uid: { $uid: { name: 'Welcome' } } }, outcomes)).toEqual({ uid: 'u:0123abcd:2:1_1' });
  });

  it('matches names by substring with nameContains and unescapes quoted names', () => {
    expect(resolveReferences({ uid: { $uid: { role: 'button', nameContains: 'cart' } } }, outcomes)).toEqual({ uid: 'u:0123abcd:2:1_5' });
    expect(resolveReferences({ uid: { $uid: { role: 'link', name: 'Say "hi"' } } }, outcomes)).toEqual({ uid: 'u:0123abcd:2:1_4' });
  });

  it('reads from a named step with from', () => {
    expect(resolveReferences({ uid: { $uid: { role: 'button', name: 'Go', from: 'old' } } }, outcomes)).toEqual({ uid: 'u:0123abcd:1:1_9' });
  });

  it('resolves references nested in objects and arrays, such as fill_form elements', () => {
    const args = {
      elements: [
        { uid: { $uid: { role: 'textbox' } }, value: 'socks' },
        { uid: { $uid: { role: 'button', name: 'Go' } }, value: '' },
      ],
    };
    expect(resolveReferences(args, outcomes)).toEqual({
      elements: [
        { uid: 'u:0123abcd:2:1_2', value: 'socks' },
        { uid: 'u:0123abcd:2:1_3', value: '' },
      ],
    });
  });

  it('resolves $match to the first capture group, or the whole match without one', () => {
    expect(resolveReferences({ pageId: { $match: { regex: 'Tab ID: (\\d+)' } } }, outcomes)).toEqual({ pageId: '42' });
    expect(resolveReferences({ value: { $match: { regex: '^url: \\S+', from: 'tab' } } }, outcomes)).toEqual({ value: 'url: https://example.com' });
  });

  it('resolves $text to the whole text of a step', () => {
    expect(resolveReferences({ note: { $text: 'tab' } }, outcomes)).toEqual({ note: 'Opened new tab. Tab ID: 42\nurl: https://example.com' });
    expect(resolveReferences({ note: { $text: null } }, outcomes)).toEqual({ note: 'Clicked.' });
  });

  it('treats an object with other keys beside a $ key as plain data', () => {
    const args = { value: { $uid: { role: 'button' }, extra: 1 } };
    expect(resolveReferences(args, outcomes)).toEqual({ value: { $uid: { role: 'button' }, extra: 1 } });
  });

  it('explains references that cannot be resolved', () => {
    expect(failure(() => resolveReferences({ uid: { $uid: { role: 'checkbox' } } }, outcomes)).message).toBe(
      'no element with role checkbox in the snapshot of step 2 "snap"; it has no checkbox',
    );
    expect(failure(() => resolveReferences({ uid: { $uid: { role: 'button', name: 'Stop', from: 'snap' } } }, outcomes)).message).toBe(
      'no element with role button, name "Stop" in the snapshot of step 2 "snap"; its button names: "Go", "Go to cart"',
    );
    expect(failure(() => resolveReferences({ uid: { $uid: { role: 'button', from: 'later' } } }, outcomes)).message).toContain('step "later", which has not run');
    expect(failure(() => resolveReferences({ uid: { $uid: { role: 'button' } } }, [{ id: undefined, text: 'no snapshot here' }])).message).toContain('run take_snapshot first');
    expect(failure(() => resolveReferences({ uid: { $uid: 'button' } }, outcomes)).message).toContain('$uid takes');
    expect(failure(() => resolveReferences({ v: { $match: { regex: '(' } } }, outcomes)).message).toContain('$match regex is invalid');
    expect(failure(() => resolveReferences({ v: { $match: { regex: 'absent', from: 'tab' } } }, outcomes)).message).toBe('$match found nothing for /absent/');
    expect(failure(() => resolveReferences({ v: { $match: 'x' } }, outcomes)).message).toContain('$match takes');
    expect(failure(() => resolveReferences({ v: { $text: 'nope' } }, outcomes)).code).toBe('invalid_params');
  });
});
