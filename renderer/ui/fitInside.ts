export interface Size {
  width: number;
  height: number;
}

/** The largest size with `content`'s proportions that fits in `room` (whole pixels; zero when either is empty). */
export function fitInside(content: Size, room: Size): Size {
  if (content.width <= 0 || content.height <= 0 || room.width <= 0 || room.height <= 0) {
    return { width: 0, height: 0 };
  }
  const scale = Math.min(room.width / content.width, room.height / content.height);
  return { width: Math.floor(content.width * scale), height: Math.floor(content.height * scale) };
}
