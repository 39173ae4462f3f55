import { pathToFileURL } from 'node:url';

/**
 * The shell is bundled to CommonJS, where `import.meta.url` does not exist; the bundler replaces it with this value
 * so core code that finds the package root from its own file keeps working.
 */
export const importMetaUrl: string = pathToFileURL(__filename).href;
