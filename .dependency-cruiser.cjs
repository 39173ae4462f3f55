/**
 * Import cycles are errors: a cycle hides which part depends on which and makes start-up order depend on luck.
 * Type-only imports count too, because a type cycle is the same design knot. Run through `npm run lint`
 * (scripts/checkImportCycles.mjs); on Node 22 or later `npx depcruise shared electron renderer bench` reads this
 * file as well.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'This import closes a cycle. Move what both sides need into a module that neither imports, usually one layer down.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      // Sources import each other as `./x.js` (NodeNext); the file on disk is x.ts or, in the renderer, x.tsx.
      extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
      extensions: ['.ts', '.tsx', '.js', '.d.ts'],
    },
  },
};
