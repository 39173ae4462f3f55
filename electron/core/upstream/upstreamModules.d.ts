/** Upstream ships JavaScript without type declarations; this is the part of its formatter tabmux calls. */
declare module 'chrome-devtools-mcp/build/src/formatters/SnapshotFormatter.js' {
  export class SnapshotFormatter {
    constructor(snapshot: { root: object; verbose: boolean; hasSelectedElement: boolean; selectedElementUid?: string });
    toString(): string;
    /** The tree as upstream puts it in `structuredContent.snapshot`. */
    toJSON(): unknown;
  }
}

/** Upstream's tool table; tests read each tool's file parameters from it. */
declare module 'chrome-devtools-mcp/build/src/tools/tools.js' {
  export function createTools(args: Record<string, boolean>): Array<{ name: string; verifyFilesSchema?: Record<string, unknown> }>;
}
