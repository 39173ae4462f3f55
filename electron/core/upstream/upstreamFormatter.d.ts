/** Upstream ships JavaScript without type declarations; this is the part of its formatter tabmux calls. */
declare module 'chrome-devtools-mcp/build/src/formatters/SnapshotFormatter.js' {
  export class SnapshotFormatter {
    constructor(snapshot: { root: object; verbose: boolean; hasSelectedElement: boolean; selectedElementUid?: string });
    toString(): string;
  }
}
