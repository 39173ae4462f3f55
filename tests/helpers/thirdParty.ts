import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** tests/thirdParty: programs the tests run tabmux with, installed apart from tabmux's own dependencies. */
const THIRD_PARTY_DIR = join(import.meta.dirname, '..', 'thirdParty');

/**
 * A file of a package installed in tests/thirdParty (its package.json says why they live there), as a function
 * that returns the path and throws, saying how to install them, when they are not installed.
 */
export function thirdPartyFile(path: string): () => string {
  const file = join(THIRD_PARTY_DIR, 'node_modules', path);
  return () => {
    if (!existsSync(file)) {
      throw new Error(`${file} is missing: the tests' third-party programs are not installed; run: npm ci --prefix tests/thirdParty (npm test does it when they are missing)`);
    }
    return file;
  };
}
