/**
 * Runs the dependency-cruiser rules in .dependency-cruiser.cjs over every source folder and fails on a violation.
 * It calls dependency-cruiser's API, so the folders and the tsconfig are named once, here. dependency-cruiser is
 * pinned to 17.x, the last line whose engines accept Node 20, which tabmux supports (package.json engines).
 */
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const ROOTS = ['shared', 'electron', 'renderer', 'bench'];

const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
const tsConfig = extractTSConfig(options.ruleSet?.options?.tsConfig?.fileName ?? 'tsconfig.json');
const result = await cruise(ROOTS, { ...options, validate: true, outputType: 'err' }, {}, { tsConfig });
const summary = typeof result.output === 'string' ? result.output : '';
process.stdout.write(summary);
process.exitCode = result.exitCode;
