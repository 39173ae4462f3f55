// Loaded with `node --import`: writes the URL of every module the process loads (Node's own excepted) to the file
// named by TABMUX_TEST_MODULE_LOG, one per line, so a test can tell what a command read.
import { register } from 'node:module';

register('./moduleLogHooks.mjs', import.meta.url, { data: { file: process.env.TABMUX_TEST_MODULE_LOG } });
