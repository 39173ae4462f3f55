import type { TabPicture } from '../../shared/model.js';
import { pictureToPage, type PictureInputRequest } from '../../shared/pictureInput.js';

/** The point of a pointer event on the shown picture, in the page's CSS pixels. */
export function pagePoint(event: { clientX: number; clientY: number }, shown: DOMRect, picture: TabPicture): { x: number; y: number } {
  const fx = shown.width > 0 ? (event.clientX - shown.left) / shown.width : 0;
  const fy = shown.height > 0 ? (event.clientY - shown.top) / shown.height : 0;
  return pictureToPage({ fx, fy }, picture);
}

/** CDP's modifier bits: Alt 1, Ctrl 2, Meta 4, Shift 8. */
export function modifierBits(event: { altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }): number {
  return (event.altKey ? 1 : 0) | (event.ctrlKey ? 2 : 0) | (event.metaKey ? 4 : 0) | (event.shiftKey ? 8 : 0);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const BUTTONS = ['left', 'middle', 'right'] as const;

export function mouseButton(button: number): 'left' | 'middle' | 'right' | 'none' {
  return BUTTONS[button] ?? 'none';
}

/**
 * A key as the page should get it: a character someone typed (no Ctrl or Meta held) is inserted as text, which
 * also covers composed and non-Latin characters; everything else (Enter, Backspace, Tab, arrows, shortcuts) is a
 * key event.
 */
export function keyInput(event: { key: string; code: string; keyCode: number; altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }, type: 'keyDown' | 'keyUp'): PictureInputRequest | undefined {
  // A named key ("Enter", "ArrowLeft") is several characters; a typed one is a single grapheme, whatever its length.
  const typed = graphemes.segment(event.key)[Symbol.iterator]().next().value?.segment === event.key && !event.ctrlKey && !event.metaKey;
  if (typed) {
    return type === 'keyDown' ? { kind: 'text', text: event.key } : undefined;
  }
  return { kind: 'key', type, key: event.key.slice(0, 32), code: event.code.slice(0, 32), keyCode: Math.min(255, Math.max(0, event.keyCode)), modifiers: modifierBits(event) };
}
