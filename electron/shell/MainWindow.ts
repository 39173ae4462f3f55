import { BrowserWindow, shell } from 'electron';
import { APP_ORIGIN } from './appProtocol.js';

/**
 * The one window: the renderer with no Node, in a sandbox, isolated from its preload. Closing it hides it, because
 * the app lives in the tray; navigation away from the app and new windows are refused (web links open in the
 * user's browser).
 */
export class MainWindow {
  readonly #preload: string;
  #window: BrowserWindow | null = null;
  #quitting = false;

  constructor(preload: string) {
    this.#preload = preload;
  }

  get webContents(): Electron.WebContents | null {
    return this.#window && !this.#window.isDestroyed() ? this.#window.webContents : null;
  }

  show(): void {
    if (this.#window && !this.#window.isDestroyed()) {
      this.#window.show();
      this.#window.focus();
      return;
    }
    const window = new BrowserWindow({
      width: 1280,
      height: 820,
      minWidth: 760,
      minHeight: 480,
      title: 'tabmux',
      show: false,
      autoHideMenuBar: true,
      webPreferences: {
        preload: this.#preload,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webSecurity: true,
        spellcheck: false,
      },
    });
    window.once('ready-to-show', () => window.show());
    window.on('close', (event) => {
      if (!this.#quitting) {
        event.preventDefault();
        window.hide();
      }
    });
    window.webContents.on('will-navigate', (event, url) => {
      if (!url.startsWith(`${APP_ORIGIN}/`)) {
        event.preventDefault();
      }
    });
    window.webContents.setWindowOpenHandler(({ url }) => {
      if (url.startsWith('https://') || url.startsWith('http://')) {
        void shell.openExternal(url);
      }
      return { action: 'deny' };
    });
    void window.loadURL(`${APP_ORIGIN}/index.html`);
    this.#window = window;
  }

  /** Lets the window really close, when the app quits. */
  close(): void {
    this.#quitting = true;
    this.#window?.destroy();
    this.#window = null;
  }
}
