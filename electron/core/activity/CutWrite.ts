/**
 * A write of whole lines the OS took only part of: `done` of them got there whole, and the file may now end inside
 * the next one.
 */
export class CutWrite extends Error {
  readonly done: number;

  constructor(
    lines: readonly string[],
    bytesWritten: number,
    override readonly cause: unknown,
  ) {
    super('activity log write cut short');
    this.done = wholeLines(lines, bytesWritten);
  }
}

/** How many of the lines `bytes` covers whole. */
function wholeLines(lines: readonly string[], bytes: number): number {
  let covered = 0;
  let done = 0;
  for (const line of lines) {
    covered += Buffer.byteLength(line);
    if (covered > bytes) {
      break;
    }
    done++;
  }
  return done;
}
