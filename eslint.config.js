import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { CORE_LAYERS } from './scripts/coreLayers.mjs';

/**
 * Layering, checked here rather than by review: each folder may import only what its runtime has. `shared/` runs
 * everywhere, `electron/core` is plain Node, only `electron/shell` and `electron/preload` see Electron, `renderer/`
 * is a browser page, and `electron/bin` is the one place that wires parts together. Import cycles are checked by
 * dependency-cruiser (.dependency-cruiser.cjs), which `npm run lint` runs after ESLint.
 */
const nodeBuiltins = ['node:*', ...builtinModules.flatMap((name) => [name, `${name}/*`])];
const browserLibraries = ['react', 'react/*', 'react-dom', 'react-dom/*', 'zustand', 'zustand/*'];

/** One `no-restricted-imports` zone: what a folder must not import, and the message that says why. */
function zone(files, message, forbidden, more = []) {
  return {
    files,
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }, ...more] }] },
  };
}

/** What no file of electron/core imports, in whichever folder. */
const coreMessage = 'electron/core is plain Node: it never imports Electron, the UI, the CLI or the entry points';
const coreForbidden = [...browserLibraries, 'electron', '**/renderer/**', '**/shell/**', '**/preload/**', '**/cli/**', '**/bin/**'];

/**
 * electron/core's folders are layers (scripts/coreLayers.mjs): each imports only the folders below it, so a type two
 * layers share lives in the lower one. A later zone for the same files replaces an earlier one's rule, so each
 * folder's zone carries the rules of all of electron/core as well.
 */
const coreLayerZones = CORE_LAYERS.map(([name], index) => {
  const above = CORE_LAYERS.slice(index + 1).map(([upper]) => upper);
  const more = above.length === 0 ? [] : [{ group: above.map((upper) => `**/${upper}/**`), message: `electron/core/${name} is below ${above.join(', ')} in the layer order (scripts/coreLayers.mjs): it imports none of them; move what both need into ${name} or a folder below it` }];
  return zone([`electron/core/${name}/**/*.ts`], coreMessage, coreForbidden, more);
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'build/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      curly: ['error', 'all'],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'all', ignoreRestSiblings: false }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  zone(['shared/**/*.ts'], 'shared/ runs in Node, Electron and the browser alike: it imports only other shared/ files and runtime-neutral packages', [
    ...nodeBuiltins,
    ...browserLibraries,
    'electron',
    '../*',
  ]),
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', '__dirname', '__filename', 'require', 'window', 'document', 'navigator', 'localStorage'].map((name) => ({
          name,
          message: 'shared/ runs in Node, Electron and the browser alike; take what you need as a parameter',
        })),
      ],
    },
  },
  zone(['electron/core/**/*.ts'], coreMessage, coreForbidden),
  ...coreLayerZones,
  zone(['electron/shell/**/*.ts'], 'electron/shell is the Electron main process: it uses core and shared, never the CLI, the entry points or the renderer', [
    ...browserLibraries,
    '**/renderer/**',
    '**/preload/**',
    '**/cli/**',
    '**/bin/**',
  ]),
  zone(['electron/preload/**/*.ts'], 'the preload is a keyhole: it imports electron and shared/ only', [
    ...nodeBuiltins,
    ...browserLibraries,
    '**/core/**',
    '**/shell/**',
    '**/cli/**',
    '**/bin/**',
    '**/renderer/**',
  ]),
  zone(['electron/cli/**/*.ts'], 'electron/cli parses argv and formats output, and talks to daemons through the socket client; wiring the daemon, the dashboard or the MCP bridge belongs in electron/bin', [
    ...browserLibraries,
    'electron',
    '**/renderer/**',
    '**/shell/**',
    '**/preload/**',
    '**/bin/**',
    '**/core/daemon/**',
    '**/core/browser/**',
    '**/core/bridge/**',
    '**/core/dashboard/**',
    '**/core/router/**',
    '**/core/supervisor/**',
  ]),
  zone(['electron/bin/**/*.ts'], 'electron/bin wires core, cli and shared together; it never loads Electron or the UI itself', [
    ...browserLibraries,
    'electron',
    '**/renderer/**',
    '**/shell/**',
    '**/preload/**',
  ]),
  zone(['renderer/**/*.ts', 'renderer/**/*.tsx'], 'renderer/ is a browser page: it imports shared/ and browser packages only, and reaches tabmux through its Host', [
    ...nodeBuiltins,
    'electron',
    '**/electron/**',
    '**/bench/**',
    '**/tests/**',
  ]),
  {
    files: ['electron/cli/**/*.ts', 'electron/bin/**/*.ts', 'bench/**/*.ts', 'tests/**/*.ts', '**/*.test.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.test.ts', 'tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
);
