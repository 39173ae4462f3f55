#!/usr/bin/env node
import { pathToFileURL } from 'node:url';
import { binFile } from '../core/platform/version.js';
import { runOwnBuild } from './ownBuildRun.js';

/**
 * The installed `tabmux` command (package.json "bin"), built to CommonJS as tabmux.cjs. A CommonJS entry starts
 * without Node's ES module loader, and the commands agents run once per step or once per chat (their build is
 * CommonJS too) load nothing else. Every other command goes on in tabmux.js, which runs the same commands the same
 * way when started directly.
 */
const args = process.argv.slice(2);
const own = runOwnBuild(args);
if (own === undefined) {
  void import(pathToFileURL(binFile('tabmux.js')).href);
} else {
  void own.then((code) => {
    process.exitCode = code;
  });
}
