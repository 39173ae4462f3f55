import { pathToFileURL } from 'node:url';

/**
 * Builds in CommonJS (the agents' commands, the `tabmux` launcher, the tray shell) have no `import.meta.url`; the
 * bundler replaces it with this value, so code that finds the package root from its own file keeps working.
 */
export const importMetaUrl: string = pathToFileURL(__filename).href;
