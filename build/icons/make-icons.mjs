// Draws the app and tray icons and writes them as PNGs with node:zlib only, so the icons are reproducible from
// source: run `node build/icons/make-icons.mjs` after changing the drawing.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) {
    c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return c >>> 0;
});

function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) {
    c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function encodePng(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y += 1) {
    raw[y * (size * 4 + 1)] = 0; // no filter
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function insideRoundRect(x, y, left, top, right, bottom, radius) {
  if (x < left || x > right || y < top || y > bottom) {
    return false;
  }
  const cx = Math.min(Math.max(x, left + radius), right - radius);
  const cy = Math.min(Math.max(y, top + radius), bottom - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

/** Shapes in unit coordinates (0..1): a rounded tile with three stacked browser tabs. */
function paint(u, v, { background }) {
  if (background && !insideRoundRect(u, v, 0.02, 0.02, 0.98, 0.98, 0.2)) {
    return null;
  }
  const tabs = [
    { left: 0.18, top: 0.24, right: 0.62, color: [255, 255, 255, 110] },
    { left: 0.28, top: 0.36, right: 0.72, color: [255, 255, 255, 170] },
    { left: 0.38, top: 0.48, right: 0.82, color: [255, 255, 255, 255] },
  ];
  let color = background ? mix([79, 70, 229, 255], [14, 165, 233, 255], (u + v) / 2) : null;
  for (const tab of tabs) {
    const inTab = insideRoundRect(u, v, tab.left, tab.top, tab.left + 0.2, tab.top + 0.12, 0.04) || insideRoundRect(u, v, tab.left, tab.top + 0.07, tab.right, tab.top + 0.32, 0.04);
    if (inTab) {
      const tint = background ? tab.color : [30, 41, 59, tab.color[3]];
      color = color ? over(color, tint) : tint;
    }
  }
  return color;
}

function mix(a, b, t) {
  return a.map((value, index) => Math.round(value + (b[index] - value) * t));
}

function over(base, top) {
  const alpha = top[3] / 255;
  return [0, 1, 2].map((i) => Math.round(base[i] * (1 - alpha) + top[i] * alpha)).concat(255);
}

function render(size, options) {
  const samples = 4;
  const rgba = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      const sum = [0, 0, 0, 0];
      for (let sy = 0; sy < samples; sy += 1) {
        for (let sx = 0; sx < samples; sx += 1) {
          const color = paint((x + (sx + 0.5) / samples) / size, (y + (sy + 0.5) / samples) / size, options);
          if (color) {
            const alpha = color[3] / 255;
            sum[0] += color[0] * alpha;
            sum[1] += color[1] * alpha;
            sum[2] += color[2] * alpha;
            sum[3] += alpha;
          }
        }
      }
      const offset = (y * size + x) * 4;
      const coverage = sum[3] / (samples * samples);
      rgba[offset] = sum[3] ? Math.round(sum[0] / sum[3]) : 0;
      rgba[offset + 1] = sum[3] ? Math.round(sum[1] / sum[3]) : 0;
      rgba[offset + 2] = sum[3] ? Math.round(sum[2] / sum[3]) : 0;
      rgba[offset + 3] = Math.round(coverage * 255);
    }
  }
  return encodePng(size, rgba);
}

writeFileSync(join(here, 'icon.png'), render(512, { background: true }));
writeFileSync(join(here, 'tray.png'), render(32, { background: true }));
writeFileSync(join(here, 'tray@2x.png'), render(64, { background: true }));
