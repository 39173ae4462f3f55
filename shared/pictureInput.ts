import * as z from 'zod/mini';
import './zodMessages.js';
import type { PictureMetadata } from './model.js';

/**
 * What a person does in the live view of a tab they took over, in the page's own CSS pixels (see `pictureToPage`).
 * Each kind maps onto one CDP input command: `mouse` and `wheel` onto `Input.dispatchMouseEvent`, `key` onto
 * `Input.dispatchKeyEvent`, `text` onto `Input.insertText` (what a person types into a field, composed characters
 * included).
 */
const modifiers = z._default(z.int().check(z.minimum(0), z.maximum(15)), 0).check(z.describe('Alt 1, Ctrl 2, Meta 4, Shift 8 (CDP bit field)'));
const coordinate = z.number().check(z.minimum(-100_000), z.maximum(100_000));

export const pictureInputSchema = z.lazy(() => z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('mouse'),
    type: z.enum(['mousePressed', 'mouseReleased', 'mouseMoved']),
    x: coordinate,
    y: coordinate,
    button: z._default(z.enum(['none', 'left', 'middle', 'right']), 'none'),
    clickCount: z._default(z.int().check(z.minimum(0), z.maximum(3)), 0),
    modifiers,
  }),
  z.object({ kind: z.literal('wheel'), x: coordinate, y: coordinate, deltaX: coordinate, deltaY: coordinate, modifiers }),
  z.object({
    kind: z.literal('key'),
    type: z.enum(['keyDown', 'keyUp']),
    key: z.string().check(z.maxLength(32)),
    code: z._default(z.string().check(z.maxLength(32)), ''),
    keyCode: z._default(z.int().check(z.minimum(0), z.maximum(255)), 0),
    modifiers,
  }),
  z.object({ kind: z.literal('text'), text: z.string().check(z.minLength(1), z.maxLength(10_000)) }),
]));
export type PictureInput = z.output<typeof pictureInputSchema>;
export type PictureInputRequest = z.input<typeof pictureInputSchema>;

/** A point on a shown picture, as a fraction of its width and height (0..1 from its top left corner). */
export interface PicturePoint {
  fx: number;
  fy: number;
}

/**
 * Maps a point on a tab's picture to the CSS pixels `Input.dispatchMouseEvent` takes. The image is the viewport
 * (`deviceWidth` CSS pixels across) scaled to fit, so one scale, taken across the width, serves both axes (as
 * DevTools' own screencast view does); `offsetTop` of browser UI drawn above the page is taken off. The input
 * coordinates are the viewport's, the space the frame shows, so a pinch zoom (`pageScaleFactor`) needs no
 * correction here: Chrome hit-tests the point through its own page scale.
 */
export function pictureToPage(point: PicturePoint, picture: { width: number; height: number; metadata: PictureMetadata }): { x: number; y: number } {
  const { metadata } = picture;
  const cssPerPixel = picture.width > 0 ? metadata.deviceWidth / picture.width : 1;
  const x = clamp(point.fx) * picture.width * cssPerPixel;
  const y = clamp(point.fy) * picture.height * cssPerPixel - metadata.offsetTop;
  return { x: Math.round(Math.min(x, metadata.deviceWidth)), y: Math.round(Math.min(Math.max(0, y), metadata.deviceHeight)) };
}

function clamp(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
