// Loaded with `node --import`: writes the URL of every module the process loads (Node's own excepted) to the file
// named by TABMUX_TEST_MODULE_LOG, one per line, so a test can tell what a command read. ES modules are seen by the
// loader hooks; CommonJS files, which `require` loads without them, where Node compiles them. When the process
// exits, Node's own modules it loaded follow, each as `node:NAME`.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.TABMUX_TEST_MODULE_LOG;
register('./moduleLogHooks.mjs', import.meta.url, { data: { file } });

const compile = Module.prototype._compile;
Module.prototype._compile = function logged(content, filename) {
  if (file) {
    appendFileSync(file, `${pathToFileURL(filename).href}\n`);
  }
  return compile.call(this, content, filename);
};

process.on('exit', () => {
  if (file) {
    const own = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => `node:${entry.slice('NativeModule '.length)}\n`);
    appendFileSync(file, own.join(''));
  }
});
