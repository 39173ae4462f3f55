import { describe, expect, it } from 'vitest';
import { DEFAULT_PICTURE_LIMITS, pictureLimits } from './PictureLimits.js';

describe('pictureLimits', () => {
  it('keeps the defaults for a profile that sets nothing', () => {
    expect(pictureLimits({})).toEqual(DEFAULT_PICTURE_LIMITS);
  });

  it("takes a profile's own caps on rate, size and tab count", () => {
    const limits = pictureLimits({ pictures: { liveFps: 3, liveMaxWidth: 800, thumbFps: 0.5, maxTabs: 4 } });
    expect(limits.live).toEqual({ ...DEFAULT_PICTURE_LIMITS.live, fps: 3, maxWidth: 800 });
    expect(limits.thumb).toEqual({ ...DEFAULT_PICTURE_LIMITS.thumb, fps: 0.5 });
    expect(limits.maxTabs).toBe(4);
  });
});
