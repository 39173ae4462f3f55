import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';
import { findChrome } from '../../electron/core/browser/findChrome.js';
import { packageRoot, tabmuxVersion } from '../../electron/core/platform/version.js';

export interface Machine {
  cpu: string;
  cores: number;
  ramGiB: number;
  os: string;
  node: string;
  chrome: string;
  upstream: string;
  sdk: string;
  tabmux: string;
}

function packageVersion(name: string): string {
  // Read from the install folder: a package's `exports` may resolve `name/package.json` to a nested stub without a version.
  const text = readFileSync(join(packageRoot(), 'node_modules', name, 'package.json'), 'utf8');
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string' ? parsed.version : 'unknown';
}

function chromeVersion(): string {
  const executable = findChrome(undefined);
  try {
    // Only stdout: Debian's wrapper script prints shell noise on stderr.
    const out = execFileSync(executable, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
    return `${out} (${executable})`;
  } catch {
    return `unknown (${executable})`;
  }
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${osType()} ${release()}`,
    node: process.version,
    chrome: chromeVersion(),
    upstream: `chrome-devtools-mcp ${packageVersion('chrome-devtools-mcp')}`,
    sdk: `@modelcontextprotocol/sdk ${packageVersion('@modelcontextprotocol/sdk')}`,
    tabmux: tabmuxVersion(),
  };
}

export function machineLines(machine: Machine): string[] {
  return [
    `CPU: ${machine.cpu}, ${machine.cores} cores; RAM ${machine.ramGiB} GiB; ${machine.os}`,
    `Node ${machine.node}; ${machine.chrome}`,
    `${machine.upstream}; ${machine.sdk}; tabmux ${machine.tabmux}`,
  ];
}
