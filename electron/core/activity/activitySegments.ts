import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { isNodeError } from '../platform/secureFs.js';
import type { RetentionSettings } from './RetentionSettings.js';

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

/** The segment to start after `after` (the first one when there is none): empty, its file not made yet. */
export function nextSegment(dir: string, after: Segment | undefined, now: number): Segment {
  const number = (after?.number ?? 0) + 1;
  return { number, path: segmentPath(dir, number), size: 0, mtimeMs: now };
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

/**
 * Removes segments older than `maxAgeMs`, then the oldest ones until the rest fit in `maxBytes`; returns the rest.
 * The segment being written is never removed: `current` is asked at each segment, as a write may start a new one
 * while this runs.
 */
export async function retainSegments(dir: string, retention: RetentionSettings, now: () => number, current: () => number | undefined): Promise<Segment[]> {
  const segments = await listSegments(dir);
  const cutoff = now() - retention.maxAgeMs;
  let total = segments.reduce((sum, segment) => sum + segment.size, 0);
  const kept: Segment[] = [];
  for (const [index, segment] of segments.entries()) {
    const isCurrent = segment.number === current();
    const newer = segments.slice(index + 1).reduce((sum, later) => sum + later.size, 0);
    if (!isCurrent && (segment.mtimeMs < cutoff || (total > retention.maxBytes && newer > 0))) {
      await fs.rm(segment.path, { force: true });
      total -= segment.size;
      continue;
    }
    kept.push(segment);
  }
  return kept;
}

/** Whether a segment's file ends with a newline (or is empty): a crash may have cut its last line short. */
export async function endsWithNewline(path: string, size: number): Promise<boolean> {
  if (size === 0) {
    return true;
  }
  const handle = await fs.open(path, 'r');
  try {
    const { buffer } = await handle.read({ buffer: Buffer.alloc(1), position: size - 1 });
    return buffer[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

/**
 * "\n" when the segment's open file does not end with one (a write cut short), so the next entry starts a line of its
 * own. The segment takes the file's size, which the cut write left unknown.
 */
export async function freshLine(handle: FileHandle, segment: Segment): Promise<string> {
  const { size } = await handle.stat();
  segment.size = size;
  if (size === 0) {
    return '';
  }
  const { buffer } = await handle.read({ buffer: Buffer.alloc(1), position: size - 1 });
  return buffer[0] === 0x0a ? '' : '\n';
}
