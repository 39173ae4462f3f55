// Runs a browserless server on loopback with the system Chromium, for tests of remote engines. Its settings come
// from the environment as browserless reads them (TOKEN, PORT, HOST, CONCURRENT, QUEUED); BROWSERS_DIR is a
// temporary folder for the Chromium wrapper. Prints "READY" once it listens.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const browsersDir = process.env.BROWSERS_DIR;
if (!browsersDir) {
  throw new Error('BROWSERS_DIR is required');
}
// browserless launches Chromium where its playwright-core expects a downloaded one: put a wrapper there that runs
// the system Chromium (without the sandbox, which needs privileges a test run may not have).
process.env.PLAYWRIGHT_BROWSERS_PATH = browsersDir;
// browserless is installed in tests/thirdParty, apart from tabmux's own dependencies (see tests/helpers/thirdParty.ts).
const browserlessEntry = createRequire(join(import.meta.dirname, '..', 'thirdParty', 'package.json')).resolve('@browserless.io/browserless');
const fromBrowserless = createRequire(browserlessEntry);
const { chromium } = fromBrowserless('playwright-core');
const executable = chromium.executablePath();
mkdirSync(dirname(executable), { recursive: true });
writeFileSync(executable, '#!/bin/sh\nexec /usr/bin/chromium --no-sandbox "$@"\n');
chmodSync(executable, 0o755);

const { Browserless, BrowserlessChromeRoutes, BrowserlessEdgeRoutes, BrowserlessFirefoxRoutes, BrowserlessWebKitRoutes } = await import(pathToFileURL(browserlessEntry).href);
const server = new Browserless();
// Only the Chromium routes: the other browsers are not installed here.
server.disableRoutes(
  ...Object.values(BrowserlessChromeRoutes),
  ...Object.values(BrowserlessEdgeRoutes),
  ...Object.values(BrowserlessFirefoxRoutes),
  ...Object.values(BrowserlessWebKitRoutes),
);
await server.start();
process.stdout.write('READY\n');
const stop = async () => {
  await server.stop().catch(() => undefined);
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
