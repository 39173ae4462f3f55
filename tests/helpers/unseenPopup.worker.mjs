// The thread side of unseenPopup.ts: it runs while the test's main thread, and the daemon on it, is frozen. It serves
// a popup page that shows an alert as it loads (or, with `downloadNames`, holds a cross-site frame for each name whose
// own frame starts a download of that name as it loads, and with `removeFrames` removes those frames once every
// download was served; with `holdDownloads` each download gets its first bytes only, and the main thread is told of
// each one cancelled), has the opener's page open it (over a DevTools connection of its own), and lets the main thread
// go once the alert blocks the popup (or the downloads were served): the daemon then hears of the popup only after
// that. `flag[0]` becomes 1 on success, 2 on failure (the reason is posted on `report`).
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const { chromePort, openerUrl, flag, report, downloadNames, removeFrames, holdDownloads } = workerData;
const signal = new Int32Array(flag);
const DEADLINE_MS = 20_000;
const BLOCKED_AFTER_MS = 500;

let beaconSeen = () => undefined;
const beacon = new Promise((resolve) => {
  beaconSeen = resolve;
});
let served = 0;
const server = createServer((request, response) => {
  if (downloadNames !== undefined) {
    serveFramedDownload(request, response);
    return;
  }
  if (request.url === '/beacon') {
    beaconSeen();
    response.end();
    return;
  }
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  // The beacon goes out in the same task as the alert: once it arrives, the alert has been called.
  response.end('<!doctype html><title>Unseen popup</title><script>fetch("/beacon"); alert("popup says hi")</script><p>popup</p>');
});

/**
 * The popup holds a frame of another site (localhost, the popup being 127.0.0.1) for each download, which holds a frame
 * of its own site (so of its process) that clicks that download's link.
 */
function serveFramedDownload(request, response) {
  const { port } = server.address();
  const url = new URL(request.url, 'http://127.0.0.1');
  const index = Number(url.searchParams.get('n') ?? '0');
  if (url.pathname === '/file') {
    const name = downloadNames[index];
    const sent = () => {
      served += 1;
      if (served === downloadNames.length) {
        beaconSeen();
      }
    };
    if (holdDownloads) {
      // Its first bytes, and the rest never: the download runs until someone cancels it, which the main thread hears.
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}"`, 'content-length': '1048576' });
      response.write(Buffer.alloc(1024, 0x61), sent);
      response.on('close', () => parentPort.postMessage({ aborted: name }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}"` });
    response.end(name, sent);
    return;
  }
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  const pages = {
    '/inner': `<!doctype html><a id="d" href="/file?n=${index}">get</a><script>document.getElementById("d").click()</script>`,
    '/outer': `<!doctype html><iframe src="/inner?n=${index}"></iframe>`,
  };
  const frames = downloadNames.map((_name, n) => `<iframe src="http://localhost:${port}/outer?n=${n}"></iframe>`).join('');
  response.end(pages[url.pathname] ?? `<!doctype html><title>Unseen popup</title>${frames}`);
}

function finish(outcome, error) {
  if (error !== undefined) {
    report.postMessage(String(error instanceof Error ? error.message : error));
  }
  Atomics.store(signal, 0, outcome);
  Atomics.notify(signal, 0);
}

function withDeadline(promise, ms, what) {
  return Promise.race([promise, new Promise((_resolve, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))]);
}

async function pageTarget(url) {
  for (const started = Date.now(); Date.now() - started < DEADLINE_MS; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const targets = await (await fetch(`http://127.0.0.1:${chromePort}/json/list`)).json();
    const found = targets.find((target) => target.type === 'page' && target.url === url);
    if (found) {
      return found;
    }
  }
  throw new Error(`no page at ${url}`);
}

/** A DevTools connection to one page; `evaluate` answers with whether the page ran the expression within `ms`. */
async function connect(target) {
  const socket = new WebSocket(target.webSocketDebuggerUrl, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let next = 0;
  const waiting = new Map();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  return {
    evaluate: (expression, ms) => {
      const id = ++next;
      const answered = new Promise((resolve) => waiting.set(id, () => resolve(true)));
      socket.send(JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, userGesture: true } }));
      return Promise.race([answered, new Promise((resolve) => setTimeout(() => resolve(false), ms))]);
    },
    close: () => socket.terminate(),
  };
}

async function run(popupUrl) {
  const opener = await connect(await pageTarget(openerUrl));
  try {
    // window.open waits while the popup is held for the browser's auto-attaching clients: not awaited.
    void opener.evaluate(`window.open(${JSON.stringify(popupUrl)}); 1`, DEADLINE_MS);
    await withDeadline(beacon, DEADLINE_MS, downloadNames === undefined ? 'the popup to load and call alert' : 'the popup’s frames to fetch their downloads');
  } finally {
    opener.close();
  }
  if (downloadNames !== undefined) {
    // The browser begins the downloads as the answers arrive; a moment more for it to have done so.
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (removeFrames) {
      const popup = await connect(await pageTarget(popupUrl));
      try {
        if (!(await popup.evaluate('document.querySelectorAll("iframe").forEach((frame) => frame.remove()); 1', DEADLINE_MS))) {
          throw new Error('the popup did not remove its frames');
        }
      } finally {
        popup.close();
      }
      // The browser drops the frames' processes and targets after they are removed.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return;
  }
  const popup = await connect(await pageTarget(popupUrl));
  try {
    if (await popup.evaluate('1', BLOCKED_AFTER_MS)) {
      throw new Error('the popup runs script after its alert was called: no dialog blocks it');
    }
  } finally {
    popup.close();
  }
}

server.listen(0, '127.0.0.1', () => {
  const popupUrl = `http://127.0.0.1:${server.address().port}/popup`;
  parentPort.once('message', () => {
    run(popupUrl).then(
      () => finish(1),
      (error) => finish(2, error),
    );
  });
  parentPort.postMessage({ popupUrl });
});
