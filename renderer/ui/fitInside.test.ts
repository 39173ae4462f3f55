import { describe, expect, it } from 'vitest';
import { fitInside } from './fitInside.js';

describe('fitInside', () => {
  it('scales up or down to the room, keeping the proportions', () => {
    expect(fitInside({ width: 800, height: 600 }, { width: 1600, height: 900 })).toEqual({ width: 1200, height: 900 });
    expect(fitInside({ width: 1280, height: 800 }, { width: 640, height: 800 })).toEqual({ width: 640, height: 400 });
  });

  it('is empty when there is nothing to fit or no room', () => {
    expect(fitInside({ width: 0, height: 600 }, { width: 100, height: 100 })).toEqual({ width: 0, height: 0 });
    expect(fitInside({ width: 800, height: 600 }, { width: 0, height: 100 })).toEqual({ width: 0, height: 0 });
  });
});
