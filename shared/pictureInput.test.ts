import { describe, expect, it } from 'vitest';
import { pictureInputSchema, pictureToPage } from './pictureInput.js';

const desktop = { deviceWidth: 800, deviceHeight: 600, offsetTop: 0, pageScaleFactor: 1 };

describe('pictureToPage', () => {
  it('maps a point on a scaled-down picture to the CSS pixels of the viewport', () => {
    const picture = { width: 400, height: 300, metadata: desktop };
    expect(pictureToPage({ fx: 0, fy: 0 }, picture)).toEqual({ x: 0, y: 0 });
    expect(pictureToPage({ fx: 0.5, fy: 0.5 }, picture)).toEqual({ x: 400, y: 300 });
    expect(pictureToPage({ fx: 0.25, fy: 0.1 }, picture)).toEqual({ x: 200, y: 60 });
  });

  it('does not depend on the size the picture was captured at', () => {
    const small = pictureToPage({ fx: 0.3, fy: 0.7 }, { width: 200, height: 150, metadata: desktop });
    const large = pictureToPage({ fx: 0.3, fy: 0.7 }, { width: 1600, height: 1200, metadata: desktop });
    expect(small).toEqual(large);
  });

  it('takes browser UI drawn above the page off, and keeps the point inside the viewport', () => {
    const metadata = { deviceWidth: 400, deviceHeight: 700, offsetTop: 56, pageScaleFactor: 1 };
    const picture = { width: 200, height: 378, metadata };
    expect(pictureToPage({ fx: 0.5, fy: 0.5 }, picture)).toEqual({ x: 200, y: 378 - 56 });
    expect(pictureToPage({ fx: 0.5, fy: 0 }, picture)).toEqual({ x: 200, y: 0 });
    expect(pictureToPage({ fx: 2, fy: -1 }, picture)).toEqual({ x: 400, y: 0 });
  });

  it('ignores the page scale: the input coordinates are the viewport the frame shows', () => {
    const zoomed = { ...desktop, pageScaleFactor: 2 };
    expect(pictureToPage({ fx: 0.5, fy: 0.5 }, { width: 400, height: 300, metadata: zoomed })).toEqual({ x: 400, y: 300 });
  });

  it('treats a point that is not a number as the top left corner', () => {
    expect(pictureToPage({ fx: Number.NaN, fy: Number.POSITIVE_INFINITY }, { width: 400, height: 300, metadata: desktop })).toEqual({ x: 0, y: 0 });
  });
});

describe('pictureInputSchema', () => {
  it('fills defaults and refuses what no input command takes', () => {
    expect(pictureInputSchema.parse({ kind: 'mouse', type: 'mousePressed', x: 1, y: 2 })).toMatchObject({ button: 'none', clickCount: 0, modifiers: 0 });
    expect(pictureInputSchema.safeParse({ kind: 'text', text: '' }).success).toBe(false);
    expect(pictureInputSchema.safeParse({ kind: 'mouse', type: 'mouseWheel', x: 1, y: 2 }).success).toBe(false);
  });
});
