import { join } from 'node:path';
import { app, dialog, ipcMain } from 'electron';
import { TabmuxError } from '../../shared/errors.js';
import { IPC_CALL, IPC_EVENT } from '../../shared/ipcChannels.js';
import { ipcFailure, toIpcReply } from '../../shared/ipcReply.js';
import type { SupervisorEvent } from '../../shared/supervisor.js';
import { Logger } from '../core/platform/Logger.js';
import { resolvePaths } from '../core/platform/paths.js';
import { Supervisor } from '../core/supervisor/Supervisor.js';
import type { Viewer } from '../core/supervisor/PictureRelay.js';
import { SupervisorService } from '../core/supervisor/SupervisorService.js';
import { packageRoot } from '../core/platform/version.js';
import { APP_ORIGIN, registerAppScheme, serveApp } from './appProtocol.js';
import { MainWindow } from './MainWindow.js';
import { TrayMenu } from './TrayMenu.js';

/**
 * The tray app: hosts the supervisor in the main process, shows every profile in the tray menu and the full UI in
 * one window. Daemons are spawned with this very binary as Node (ELECTRON_RUN_AS_NODE), so a packaged app needs no
 * separate Node, and they keep running after the app quits unless the user chooses to stop them.
 */

const logger = Logger.toStderr('app');

if (!app.requestSingleInstanceLock()) {
  // Another instance owns the tray; it shows its window in answer to 'second-instance'.
  app.quit();
} else {
  registerAppScheme();
  void app.whenReady().then(start, (error: unknown) => {
    logger.error(`failed to start: ${TabmuxError.from(error).message}`);
    app.exit(1);
  });
}

async function start(): Promise<void> {
  const root = packageRoot();
  serveApp(join(root, 'dist', 'renderer'));
  const supervisor = new Supervisor({ paths: resolvePaths(), execPath: process.execPath, logger });
  const service = new SupervisorService(supervisor);
  const window = new MainWindow(join(__dirname, 'preload.cjs'));
  const iconDir = app.isPackaged ? process.resourcesPath : join(root, 'build', 'icons');

  const run = (what: string, action: () => Promise<unknown>): void => {
    action().catch((error: unknown) => dialog.showErrorBox(`tabmux: ${what} failed`, TabmuxError.from(error).message));
  };
  let quitting = false;
  const tray = new TrayMenu(join(iconDir, 'tray.png'), {
    open: () => window.show(),
    start: (profile) => run(`starting ${profile}`, () => supervisor.startProfile(profile)),
    stop: (profile) => run(`stopping ${profile}`, () => supervisor.stopProfile(profile)),
    restart: (profile) => run(`restarting ${profile}`, () => supervisor.restartProfile(profile)),
    quit: () => {
      if (!quitting) {
        quitting = true;
        void quit(supervisor, window, tray).finally(() => (quitting = false));
      }
    },
  });
  if (process.env['TABMUX_EXPOSE_TRAY_LABELS'] === '1') {
    // A tray menu cannot be inspected from outside, so the Electron e2e spec asks for its labels to be exposed.
    Object.defineProperty(globalThis, 'tabmuxTrayLabels', { get: () => tray.labels, configurable: true });
  }

  const refreshTray = (): void => {
    void supervisor.snapshot().then((snapshot) => tray.update(snapshot.profiles), () => undefined);
  };
  // Sessions waiting on the person, by profile and id: the tray's labels change when one starts or stops waiting.
  const waiting = new Set<string>();
  service.onEvent((event: SupervisorEvent) => {
    window.webContents?.send(IPC_EVENT, event);
    if (event.type === 'profile') {
      refreshTray();
    } else if (event.type === 'daemon' && event.event.type === 'session.updated') {
      const key = `${event.profile}/${event.event.session.id}`;
      const now = Boolean(event.event.session.waitingForHuman);
      if (now !== waiting.has(key)) {
        if (now) {
          waiting.add(key);
        } else {
          waiting.delete(key);
        }
        refreshTray();
      }
    }
  });

  // The window is the viewer of its live pictures: frames go to it alone, and stop when it is destroyed.
  const viewers = new Map<number, Viewer>();
  const viewerOf = (sender: Electron.WebContents): Viewer => {
    let viewer = viewers.get(sender.id);
    if (!viewer) {
      const id = `window-${sender.id}`;
      viewer = { id, push: (event) => (sender.isDestroyed() ? undefined : sender.send(IPC_EVENT, event)) };
      viewers.set(sender.id, viewer);
      sender.once('destroyed', () => {
        viewers.delete(sender.id);
        void service.dropViewer(id);
      });
    }
    return viewer;
  };

  // Answers with an IpcReply envelope rather than throwing, so the window sees each error's code, not just its text.
  ipcMain.handle(IPC_CALL, (event, method: unknown, params: unknown) => {
    // Only the app's own page may call; anything else that ends up in a frame gets nothing.
    if (!event.senderFrame?.url.startsWith(`${APP_ORIGIN}/`)) {
      return ipcFailure(new TabmuxError('invalid_request', 'calls are accepted from the tabmux window only'));
    }
    return toIpcReply(() => service.dispatch(typeof method === 'string' ? method : '', params, viewerOf(event.sender)));
  });

  app.on('second-instance', () => window.show());
  // The app lives in the tray: closing the window does not quit.
  app.on('window-all-closed', () => undefined);

  await supervisor.start();
  refreshTray();
  window.show();
}

async function quit(supervisor: Supervisor, window: MainWindow, tray: TrayMenu): Promise<void> {
  const snapshot = await supervisor.snapshot();
  const running = snapshot.profiles.filter((profile) => profile.status !== null).map((profile) => profile.name);
  let stopDaemons = false;
  if (running.length > 0) {
    const { response } = await dialog.showMessageBox({
      type: 'question',
      buttons: ['Keep them running', 'Stop them', 'Cancel'],
      defaultId: 0,
      cancelId: 2,
      message: `Quit tabmux?`,
      detail: `Daemons are running for ${running.join(', ')}. Agents keep working if you leave them running; stopping them closes the Chrome tabmux launched and only disconnects from browsers of your own.`,
    });
    if (response === 2) {
      return;
    }
    stopDaemons = response === 1;
  }
  await supervisor.dispose({ stopDaemons });
  tray.destroy();
  window.close();
  app.quit();
}
