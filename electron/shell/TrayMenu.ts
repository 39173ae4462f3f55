import { Menu, Tray, nativeImage, type MenuItemConstructorOptions } from 'electron';
import type { ProfileView } from '../../shared/supervisor.js';
import { trayProfileLabel } from './trayProfileLabel.js';

export interface TrayActions {
  open: () => void;
  start: (profile: string) => void;
  stop: (profile: string) => void;
  restart: (profile: string) => void;
  quit: () => void;
}

/**
 * The tray icon and its menu: every profile with its state and start/stop (connect/disconnect for a browser the
 * user runs), then Open and Quit.
 */
export class TrayMenu {
  readonly #tray: Tray;
  readonly #actions: TrayActions;
  #labels: string[] = [];

  constructor(iconPath: string, actions: TrayActions) {
    this.#actions = actions;
    const icon = nativeImage.createFromPath(iconPath);
    this.#tray = new Tray(icon.isEmpty() ? nativeImage.createEmpty() : icon);
    this.#tray.setToolTip('tabmux');
    this.#tray.on('click', () => actions.open());
    this.update([]);
  }

  /** What the menu shows now, top to bottom; the e2e spec reads it because a tray menu cannot be inspected. */
  get labels(): readonly string[] {
    return this.#labels;
  }

  update(profiles: readonly ProfileView[]): void {
    const profileItems: MenuItemConstructorOptions[] = profiles.map((profile) => {
      const running = profile.unanswered || profile.state === 'ready' || profile.state === 'starting' || profile.state === 'restarting';
      const external = profile.kind === 'external';
      const submenu: MenuItemConstructorOptions[] = [
        { label: external ? 'Connect' : 'Start', enabled: !profile.unanswered && (profile.state === 'stopped' || profile.state === 'crashed'), click: () => this.#actions.start(profile.name) },
        { label: external ? 'Disconnect' : 'Stop', enabled: running || profile.state === 'crashed', click: () => this.#actions.stop(profile.name) },
        { label: external ? 'Reconnect' : 'Restart', enabled: profile.state === 'ready' || profile.state === 'crashed', click: () => this.#actions.restart(profile.name) },
      ];
      if (profile.endpoint !== null) {
        submenu.unshift({ label: `Your browser at ${profile.endpoint}`, enabled: false }, { type: 'separator' });
      }
      return { label: trayProfileLabel(profile), submenu };
    });
    const template: MenuItemConstructorOptions[] = [
      { label: 'Open tabmux', click: () => this.#actions.open() },
      { type: 'separator' },
      ...(profileItems.length > 0 ? profileItems : [{ label: 'No profiles yet', enabled: false }]),
      { type: 'separator' },
      { label: 'Quit', click: () => this.#actions.quit() },
    ];
    this.#labels = template.flatMap((item) => (item.label === undefined ? [] : [item.label]));
    this.#tray.setContextMenu(Menu.buildFromTemplate(template));
  }

  destroy(): void {
    this.#tray.destroy();
  }
}
