import { describe, expect, it } from 'vitest';
import { jpegSize } from './jpegSize.js';

/** A JPEG's start, an APP0 segment, and a baseline frame header of the given size. */
function jpegHead(width: number, height: number): Uint8Array {
  const app0 = [0xff, 0xe0, 0x00, 0x10, ...new Array<number>(14).fill(0)];
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, ...new Array<number>(9).fill(0)];
  return Uint8Array.from([0xff, 0xd8, ...app0, ...sof0]);
}

describe('jpegSize', () => {
  it('reads the size from the frame header after other segments', () => {
    expect(jpegSize(jpegHead(320, 197))).toEqual({ width: 320, height: 197 });
    expect(jpegSize(jpegHead(1280, 800))).toEqual({ width: 1280, height: 800 });
  });

  it('gives nothing for what is not a JPEG, or is cut short', () => {
    expect(jpegSize(Uint8Array.from([0x89, 0x50, 0x4e, 0x47]))).toBeUndefined();
    expect(jpegSize(jpegHead(320, 200).subarray(0, 12))).toBeUndefined();
  });
});
