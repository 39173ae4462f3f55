/**
 * Every source file of electron/core lives in a folder named for its job, and every such folder has its place in
 * the layer order (scripts/coreLayers.mjs), which the ESLint zones enforce import by import.
 */
import { readdirSync } from 'node:fs';
import { CORE_LAYERS } from './coreLayers.mjs';

const CORE = 'electron/core';
const listed = new Set(CORE_LAYERS.map(([name]) => name));
const problems = [];
for (const entry of readdirSync(CORE, { withFileTypes: true })) {
  if (entry.isFile()) {
    problems.push(`${CORE}/${entry.name} sits at the root of ${CORE}: move it into the folder for its job`);
  } else if (entry.isDirectory() && !listed.has(entry.name)) {
    problems.push(`${CORE}/${entry.name}/ has no place in the layer order: add it to scripts/coreLayers.mjs`);
  }
}
for (const name of listed) {
  if (!readdirSync(CORE).includes(name)) {
    problems.push(`scripts/coreLayers.mjs lists ${name}, which is not a folder of ${CORE}`);
  }
}
for (const problem of problems) {
  process.stderr.write(`${problem}\n`);
}
process.exitCode = problems.length > 0 ? 1 : 0;
