import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { isNodeError } from '../platform/secureFs.js';

/** Segment files: `activity-000001.jsonl`, numbered in the order they were started; the highest is written to. */
const SEGMENT_PATTERN = /^activity-(\d{6,})\.jsonl$/;

export interface Segment {
  number: number;
  path: string;
  size: number;
  /** The last write: no entry in the segment started later. */
  mtimeMs: number;
}

export function segmentPath(dir: string, number: number): string {
  return join(dir, `activity-${String(number).padStart(6, '0')}.jsonl`);
}

/** The log's segments, oldest first; none when the folder does not exist yet. */
export async function listSegments(dir: string): Promise<Segment[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if (isNodeError(error) && error.code === 'ENOENT') {
      return [];
    }
    throw error;
  }
  const segments: Segment[] = [];
  for (const name of names) {
    const match = SEGMENT_PATTERN.exec(name);
    if (!match?.[1]) {
      continue;
    }
    const path = join(dir, name);
    try {
      const stat = await fs.lstat(path);
      if (stat.isFile()) {
        segments.push({ number: Number(match[1]), path, size: stat.size, mtimeMs: stat.mtimeMs });
      }
    } catch (error) {
      // Removed by retention between readdir and stat.
      if (!(isNodeError(error) && error.code === 'ENOENT')) {
        throw error;
      }
    }
  }
  return segments.sort((a, b) => a.number - b.number);
}
