/**
 * The pixel size of a JPEG image, read from its frame header (SOF0..SOF15 except DHT, JPG and DAC markers).
 * Screencast frames do not say how large Chrome scaled them; the picture's size is what maps a point on it back to
 * the page. Undefined for anything that is not a well-formed JPEG.
 */
export function jpegSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) {
    return undefined;
  }
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) {
      return undefined;
    }
    const marker = bytes[at + 1] ?? 0;
    const length = ((bytes[at + 2] ?? 0) << 8) | (bytes[at + 3] ?? 0);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = ((bytes[at + 5] ?? 0) << 8) | (bytes[at + 6] ?? 0);
      const width = ((bytes[at + 7] ?? 0) << 8) | (bytes[at + 8] ?? 0);
      return width > 0 && height > 0 ? { width, height } : undefined;
    }
    if (length < 2) {
      return undefined;
    }
    at += 2 + length;
  }
  return undefined;
}
