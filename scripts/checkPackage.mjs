/**
 * Checks the npm package as a registry user gets it: packs this checkout (its `prepack` builds first, so an unbuilt
 * clone packs a working package), checks what the tarball holds, installs it globally into a temporary prefix with
 * `--engine-strict` (as `npm install -g ./tabmux-*.tgz` does, but never touching the machine's own prefix), checks
 * that the installed files import nothing but Node's modules, their own files and the declared dependencies (and
 * that every dependency is used), then runs the installed `tabmux` from another folder: `--version`, a read-only
 * command, and a real `mcp call` on the default profile of a temporary home that starts a daemon, Chromium and an upstream worker from the installed files.
 *
 * Prints the tarball's size and what the install weighs; exits non-zero with every problem it found. Used by .ci/run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
/** ws loads these only if they are installed (in a try), as faster optional parts; they are not dependencies. */
const OPTIONAL_IMPORTS = new Set(['bufferutil', 'utf-8-validate']);
/** What the tarball may hold: the command's built files, the dashboard page, and npm's own files. */
const SHIPPED = ['dist/electron/bin', 'dist/renderer', 'package.json', 'README.md', 'LICENSE'];
/** Far above what each step takes on a loaded machine; a step that hangs fails the check instead of the CI run. */
const STEP_TIMEOUT_MS = 5 * 60_000;

/** What is wrong, each said once (a file may import the same missing package many times). */
const problems = new Set();
const work = mkdtempSync(join(tmpdir(), 'tmx-pack-'));

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: STEP_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, ...options });
  return { code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '', error: result.error };
}

function must(what, result) {
  if (result.code !== 0) {
    throw new Error(`${what} failed (exit ${String(result.code)}${result.error ? `, ${result.error.message}` : ''})\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

function kb(bytes) {
  return `${(bytes / 1024).toFixed(0)} kB`;
}

function sizeOf(path) {
  const stat = statSync(path);
  return stat.isDirectory() ? readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0) : stat.size;
}

function filesUnder(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The tarball's file list: no source maps, no bench, nothing outside what `files` names, and what must be there. */
function checkContents(files) {
  const paths = files.map((file) => file.path);
  for (const path of paths) {
    if (path.endsWith('.map')) {
      problems.add(`tarball holds a source map: ${path}`);
    }
    if (path.startsWith('dist/bench/') || path.startsWith('bench/')) {
      problems.add(`tarball holds bench code: ${path}`);
    } else if (!SHIPPED.some((shipped) => path === shipped || path.startsWith(`${shipped}/`))) {
      // npm adds some files whatever "files" says (the file "main" names, for one).
      problems.add(`tarball holds ${path}, which is no part of the installed command`);
    }
  }
  for (const wanted of ['LICENSE', 'README.md', 'package.json', pkg.bin.tabmux, 'dist/renderer/index.html']) {
    if (!paths.includes(wanted)) {
      problems.add(`tarball lacks ${wanted}`);
    }
  }
  if (!readFileSync(join(ROOT, 'LICENSE'), 'utf8').includes('Apache License') || pkg.license !== 'Apache-2.0') {
    problems.add('LICENSE is not the Apache-2.0 text package.json names');
  }
}

/** A package name from an import specifier: `a/b/c.js` is `a`, `@s/a/b.js` is `@s/a`. */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Every import, require and resolve of a literal specifier in the installed JavaScript (the bundles are minified, so
 * a specifier is recognised by its shape: a relative path, or a valid package name with an optional subpath).
 */
function checkImports(installed) {
  const declared = new Set(Object.keys(pkg.dependencies ?? {}));
  const used = new Set();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\brequire\.resolve\s*\(\s*|^import\s*)(["'])([^"'\s]+)\1/gm;
  const packageName = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(?:\/[\w.@~/-]*)?$/;
  const scripts = filesUnder(installed).filter((file) => /\.(?:js|cjs|mjs)$/.test(file) && !file.includes(`${join(installed, 'node_modules')}/`));
  for (const file of scripts) {
    for (const match of readFileSync(file, 'utf8').matchAll(pattern)) {
      const specifier = match[2];
      if (specifier.startsWith('.')) {
        if (!existsSync(resolve(dirname(file), specifier))) {
          problems.add(`${file.slice(installed.length + 1)} imports ${specifier}, which is not in the package`);
        }
        continue;
      }
      if (specifier.startsWith('node:') || !packageName.test(specifier)) {
        continue;
      }
      const name = packageOf(specifier);
      if (builtinModules.includes(name) || OPTIONAL_IMPORTS.has(name)) {
        continue;
      }
      used.add(name);
      if (!declared.has(name)) {
        problems.add(`${file.slice(installed.length + 1)} imports ${specifier}, but ${name} is not in "dependencies"`);
      }
    }
  }
  for (const name of declared) {
    if (!used.has(name)) {
      problems.add(`"dependencies" names ${name}, which no shipped file imports (a dev dependency?)`);
    }
  }
  return scripts.length;
}

/** Runs the installed command from a folder outside the checkout, with a home of its own and a headless Chromium. */
function checkInstalledCommand(prefix) {
  const tabmux = join(prefix, 'bin', 'tabmux');
  const elsewhere = mkdtempSync(join(work, 'cwd-'));
  const env = { ...process.env, TABMUX_HOME: mkdtempSync(join(tmpdir(), 'tmx-')), TABMUX_HEADLESS: '1' };
  for (const key of Object.keys(env)) {
    if (key.startsWith('TABMUX_') && key !== 'TABMUX_HOME' && key !== 'TABMUX_HEADLESS') {
      delete env[key];
    }
  }
  const cli = (args) => run(tabmux, args, { cwd: elsewhere, env });
  const missingModule = /ERR_MODULE_NOT_FOUND|Cannot find (?:module|package)/;
  try {
    const version = cli(['--version']);
    if (version.code !== 0 || !version.stdout.includes(pkg.version)) {
      problems.add(`installed tabmux --version printed ${JSON.stringify(version.stdout + version.stderr)} (exit ${String(version.code)})`);
    }
    const status = cli(['daemon', 'status', '--json']);
    if (status.code === null || missingModule.test(status.stderr)) {
      problems.add(`installed tabmux daemon status failed to run: ${status.stderr}`);
    }
    const call = cli(['mcp', 'call', '--new-session', 'list_pages']);
    if (call.code !== 0 || !call.stdout.includes('## Pages')) {
      problems.add(`installed tabmux mcp call list_pages exited ${String(call.code)}:\n${call.stdout}\n${call.stderr}`);
    } else {
      console.log('installed tabmux: --version, daemon status, and mcp call list_pages (daemon, Chromium, upstream worker) work');
    }
  } finally {
    cli(['daemon', 'stop']);
    rmSync(env.TABMUX_HOME, { recursive: true, force: true });
  }
}

try {
  const unbuilt = !existsSync(join(ROOT, pkg.bin.tabmux));
  // The prepack build's own output goes to stderr, so stdout is npm's JSON alone.
  const packed = must('npm pack', run('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] }));
  const [info] = JSON.parse(packed.stdout);
  console.log(`packed ${info.filename}${unbuilt ? ' from an unbuilt checkout (prepack built it)' : ''}: ${kb(info.size)} tarball, ${kb(info.unpackedSize)} unpacked, ${info.files.length} files`);
  checkContents(info.files);

  const prefix = join(work, 'prefix');
  const install = must(
    'npm install -g --engine-strict',
    run('npm', ['install', '-g', '--prefix', prefix, '--engine-strict', '--no-audit', '--no-fund', join(work, info.filename)], { cwd: work }),
  );
  if (/EBADENGINE/.test(install.stdout + install.stderr)) {
    problems.add(`the install warned of an unsupported engine:\n${install.stderr}`);
  }
  const installed = join(prefix, 'lib', 'node_modules', 'tabmux');
  const packages = filesUnder(join(installed, 'node_modules')).filter((file) => /node_modules\/(?:@[^/]+\/)?[^/@]+\/package\.json$/.test(file)).length;
  console.log(`installed globally into a temporary prefix: ${(sizeOf(installed) / 1024 / 1024).toFixed(1)} MB with ${packages} packages beside tabmux`);
  const scripts = checkImports(installed);
  console.log(`checked the imports of ${scripts} installed files against "dependencies": ${Object.keys(pkg.dependencies).join(', ')}`);
  checkInstalledCommand(prefix);
} catch (error) {
  problems.add(error instanceof Error ? error.message : String(error));
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (problems.size > 0) {
  console.error(`package check failed:\n- ${[...problems].join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log('package check passed');
}
