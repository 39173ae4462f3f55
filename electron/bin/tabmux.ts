#!/usr/bin/env node
import { runCli } from '../cli/main.js';
import { entryPoints } from './entryPoints.js';

const code = await runCli(process.argv.slice(2), entryPoints);
process.exitCode = code;
