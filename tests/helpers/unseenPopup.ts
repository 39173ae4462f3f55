import { once } from 'node:events';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';

/** The most the main thread stays frozen: the popup opens, loads and calls alert well within it. */
const FROZEN_AT_MOST_MS = 30_000;

export interface UnseenPopupOptions {
  /**
   * Instead of an alert, the popup holds a frame of another site (so of another process) for each name, which holds a
   * frame of its own site that starts a download of that name as it loads; the main thread goes on once every download
   * was served.
   */
  downloadNames?: readonly string[];
  /** With `downloadNames`: the popup removes those frames once the downloads were served, before the main thread goes on. */
  removeFrames?: boolean;
  /** With `downloadNames`: each download gets its first bytes only, and runs until it is cancelled (see `cancelled`). */
  holdDownloads?: boolean;
}

export interface UnseenPopup {
  /** The popup's URL (served by the helper's own thread, same site as loopback pages). */
  url: string;
  /** Stops the helper's thread and its web server. */
  close: () => Promise<void>;
  /** With `holdDownloads`: resolves once the browser gave up the download of this name (it was cancelled). */
  cancelled: (name: string) => Promise<void>;
}

/**
 * Has the page at `openerUrl` open a popup that shows an alert as it loads, while this thread is frozen: a daemon
 * running in the test process hears of the popup only after the dialog opened, as a daemon that lost the race to the
 * browser's other clients (or attached late) does, and never sees the dialog. The work is done by a thread of its own
 * (`unseenPopup.worker.mjs`) over DevTools connections of its own; this thread waits on a shared flag meanwhile.
 */
export async function openUnseenPopup(chromePort: number, openerUrl: string, options: UnseenPopupOptions = {}): Promise<UnseenPopup> {
  const flag = new SharedArrayBuffer(4);
  const { port1: report, port2: reportEnd } = new MessageChannel();
  const worker = new Worker(new URL('./unseenPopup.worker.mjs', import.meta.url), {
    workerData: { chromePort, openerUrl, flag, report: reportEnd, downloadNames: options.downloadNames, removeFrames: options.removeFrames === true, holdDownloads: options.holdDownloads === true },
    transferList: [reportEnd],
  });
  const close = async (): Promise<void> => {
    report.close();
    await worker.terminate();
  };
  const [{ popupUrl }] = (await once(worker, 'message')) as [{ popupUrl: string }];
  const aborted = new Set<string>();
  const abortWaiters = new Set<() => void>();
  worker.on('message', (message: { aborted?: string }) => {
    if (message.aborted !== undefined) {
      aborted.add(message.aborted);
      for (const check of [...abortWaiters]) {
        check();
      }
    }
  });
  const cancelled = (name: string): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (aborted.has(name)) {
          abortWaiters.delete(check);
          resolve();
        }
      };
      abortWaiters.add(check);
      check();
    });
  worker.postMessage('go');
  const woke = Atomics.wait(new Int32Array(flag), 0, 0, FROZEN_AT_MOST_MS);
  const outcome = Atomics.load(new Int32Array(flag), 0);
  if (outcome !== 1) {
    const reason = receiveMessageOnPort(report)?.message as string | undefined;
    await close();
    throw new Error(`the unseen popup did not open: ${woke === 'timed-out' ? `nothing happened within ${FROZEN_AT_MOST_MS} ms` : (reason ?? 'no reason given')}`);
  }
  return { url: popupUrl, close, cancelled };
}
