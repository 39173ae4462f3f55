import { describe, expect, it } from 'vitest';
import { closestName } from './closestName.js';

const TOOLS = ['click', 'close_page', 'fill', 'fill_form', 'list_pages', 'navigate_page', 'new_page', 'take_snapshot', 'take_screenshot'];

describe('closestName', () => {
  it('names the one candidate a typo is closest to', () => {
    expect(closestName('clik', TOOLS)).toBe('click');
    expect(closestName('navigate', TOOLS)).toBeUndefined();
    expect(closestName('navigate_pgae', TOOLS)).toBe('navigate_page');
    expect(closestName('List_Pages', TOOLS)).toBe('list_pages');
    expect(closestName('take_snapshots', TOOLS)).toBe('take_snapshot');
  });

  it('offers nothing when nothing is close, or when two candidates are as close', () => {
    expect(closestName('nope', TOOLS)).toBeUndefined();
    expect(closestName('evaluate', TOOLS)).toBeUndefined();
    // One edit from fill, six from fill_form.
    expect(closestName('fil', TOOLS)).toBe('fill');
    expect(closestName('take_s', ['take_a', 'take_b'])).toBeUndefined();
    expect(closestName('', TOOLS)).toBeUndefined();
  });
});
