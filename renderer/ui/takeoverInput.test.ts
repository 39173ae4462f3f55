import { describe, expect, it } from 'vitest';
import { keyInput, modifierBits, mouseButton, pagePoint } from './takeoverInput.js';

const plain = { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false };

describe('takeover input in the live view', () => {
  it('maps a click on the picture, shown at any size and place, to the page', () => {
    const picture = { tabId: 't', data: '', width: 640, height: 400, timestamp: 0, metadata: { deviceWidth: 1280, deviceHeight: 800, offsetTop: 0, pageScaleFactor: 1 } };
    const shown = { left: 100, top: 50, width: 320, height: 200, right: 420, bottom: 250, x: 100, y: 50, toJSON: () => ({}) };
    expect(pagePoint({ clientX: 260, clientY: 150 }, shown, picture)).toEqual({ x: 640, y: 400 });
    expect(pagePoint({ clientX: 100, clientY: 50 }, shown, picture)).toEqual({ x: 0, y: 0 });
  });

  it('types characters as text and sends other keys as key events', () => {
    expect(keyInput({ key: 'é', code: 'KeyE', keyCode: 69, ...plain }, 'keyDown')).toEqual({ kind: 'text', text: 'é' });
    expect(keyInput({ key: 'é', code: 'KeyE', keyCode: 69, ...plain }, 'keyUp')).toBeUndefined();
    expect(keyInput({ key: 'Enter', code: 'Enter', keyCode: 13, ...plain }, 'keyDown')).toEqual({ kind: 'key', type: 'keyDown', key: 'Enter', code: 'Enter', keyCode: 13, modifiers: 0 });
    expect(keyInput({ key: 'a', code: 'KeyA', keyCode: 65, ...plain, ctrlKey: true }, 'keyDown')).toMatchObject({ kind: 'key', key: 'a', modifiers: 2 });
  });

  it('names buttons and modifiers as CDP does', () => {
    expect(mouseButton(0)).toBe('left');
    expect(mouseButton(2)).toBe('right');
    expect(mouseButton(7)).toBe('none');
    expect(modifierBits({ altKey: true, ctrlKey: false, metaKey: true, shiftKey: true })).toBe(13);
  });
});
