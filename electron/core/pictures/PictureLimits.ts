import type { PictureSize } from '../../../shared/model.js';
import type { ProfileConfig } from '../profile/ProfileStore.js';

/** How large and how often one size of picture is: the screencast's bounds and the frames let through per second. */
export interface PictureLimit {
  maxWidth: number;
  maxHeight: number;
  fps: number;
  /** JPEG quality, 0..100. */
  quality: number;
}

/** A profile's caps on live pictures: per size, and how many tabs are captured at once. */
export type PictureLimits = Record<PictureSize, PictureLimit> & { maxTabs: number };

/**
 * Thumbnails are a glance (one frame a second at list size); the live view is several frames a second at a size
 * that fills a window. A frame is only encoded when the page painted something new, so a still page costs nothing.
 */
export const DEFAULT_PICTURE_LIMITS: PictureLimits = {
  thumb: { maxWidth: 320, maxHeight: 200, fps: 1, quality: 50 },
  live: { maxWidth: 1280, maxHeight: 800, fps: 8, quality: 60 },
  maxTabs: 16,
};

/** A profile's caps: the defaults, with what its `pictures` setting changes. */
export function pictureLimits(config: ProfileConfig): PictureLimits {
  const set = config.pictures ?? {};
  const { thumb, live, maxTabs } = DEFAULT_PICTURE_LIMITS;
  return {
    thumb: { ...thumb, fps: set.thumbFps ?? thumb.fps },
    live: { ...live, fps: set.liveFps ?? live.fps, maxWidth: set.liveMaxWidth ?? live.maxWidth, maxHeight: set.liveMaxHeight ?? live.maxHeight },
    maxTabs: set.maxTabs ?? maxTabs,
  };
}
