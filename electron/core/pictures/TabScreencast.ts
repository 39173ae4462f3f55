import type { Protocol } from 'devtools-protocol';
import type { CDPSession } from 'puppeteer-core/internal/api/CDPSession.js';
import { TabmuxError } from '../../../shared/errors.js';
import type { TabPicture } from '../../../shared/model.js';
import type { PictureInput } from '../../../shared/pictureInput.js';
import type { CdpConnection } from '../browser/CdpConnection.js';
import { jpegSize } from './jpegSize.js';
import type { PictureLimit } from './PictureLimits.js';

/** Keys whose keyDown carries a character of their own (what makes Enter submit a form). */
const KEY_TEXT: Readonly<Record<string, string>> = { Enter: '\r' };

/**
 * The live picture of one tab, and the door for a person's input into it, on its own flat session of the daemon's
 * CDP connection (never through upstream's tool mutex, so watching never delays an agent).
 *
 * Frames: `Page.startScreencast`. Headless Chrome paints only the front tab of a window, and every agent's tab is a
 * background tab: measured on headless Chromium, a background tab sends no screencast frame at all, and is
 * `document.visibilityState === 'hidden'`. `Emulation.setFocusEmulationEnabled` on this session makes Chrome treat
 * the page as visible and focused for as long as the session is attached, so it paints and the screencast sends a
 * frame for every change, without bringing the tab to the front (the agent's front tab and window stay as they
 * are). `Page.setWebLifecycleState active` did not make it paint. The emulation ends when this session detaches,
 * so a tab nobody watches is back to hidden. A page that is watched sees itself visible, as it would in a window a
 * person looks at.
 *
 * Rate: Chrome sends the next frame only after the earlier ones are acknowledged, so frames are acknowledged when
 * they are let through, at most `fps` a second; a still page sends nothing.
 */
export class TabScreencast {
  readonly #connection: CdpConnection;
  readonly #sessionId: string;
  readonly #session: CDPSession;
  readonly #deliver: (picture: TabPicture) => void;
  #limit: PictureLimit;
  #pending: Protocol.Page.ScreencastFrameEvent | null = null;
  #unacked: number[] = [];
  #lastSentAt = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;
  /** The latest frame sent; a new watcher gets it at once instead of waiting for the page to change. */
  last: TabPicture | null = null;

  private constructor(connection: CdpConnection, sessionId: string, session: CDPSession, readonly tabId: string, limit: PictureLimit, deliver: (picture: TabPicture) => void) {
    this.#connection = connection;
    this.#sessionId = sessionId;
    this.#session = session;
    this.#limit = limit;
    this.#deliver = deliver;
  }

  static async start(connection: CdpConnection, tabId: string, pageTargetId: string, limit: PictureLimit, deliver: (picture: TabPicture) => void): Promise<TabScreencast> {
    const { sessionId } = await connection.send('Target.attachToTarget', { targetId: pageTargetId, flatten: true });
    const session = connection.session(sessionId);
    if (!session) {
      throw new TabmuxError('browser_unavailable', `tab ${tabId} could not be watched: the browser gave no session for it; try again`);
    }
    const cast = new TabScreencast(connection, sessionId, session, tabId, limit, deliver);
    session.on('Page.screencastFrame', (event: Protocol.Page.ScreencastFrameEvent) => cast.#onFrame(event));
    // Asked of the page's renderer, which a page that never yields or has crashed does not answer: not waited for, so
    // such a tab never holds up the pictures of the others (the browser answers the screencast's start itself).
    session.send('Emulation.setFocusEmulationEnabled', { enabled: true }).catch(() => undefined);
    try {
      await cast.#startScreencast();
    } catch (error) {
      await cast.stop();
      throw TabmuxError.from(error);
    }
    return cast;
  }

  get limit(): PictureLimit {
    return this.#limit;
  }

  /** Changes size and rate (a thumbnail opened in the live view, or closed again). */
  async setLimit(limit: PictureLimit): Promise<void> {
    this.#limit = limit;
    await this.#session.send('Page.stopScreencast');
    await this.#startScreencast();
  }

  /** Sends a person's input to the page, in the page's CSS pixels. */
  async input(input: PictureInput): Promise<void> {
    const session = this.#session;
    switch (input.kind) {
      case 'mouse':
        await session.send('Input.dispatchMouseEvent', {
          type: input.type,
          x: input.x,
          y: input.y,
          button: input.button,
          clickCount: input.clickCount,
          modifiers: input.modifiers,
        });
        return;
      case 'wheel':
        await session.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x: input.x, y: input.y, deltaX: input.deltaX, deltaY: input.deltaY, modifiers: input.modifiers });
        return;
      case 'key': {
        const text = input.type === 'keyDown' ? KEY_TEXT[input.key] : undefined;
        await session.send('Input.dispatchKeyEvent', {
          type: input.type === 'keyUp' ? 'keyUp' : text === undefined ? 'rawKeyDown' : 'keyDown',
          key: input.key,
          code: input.code,
          windowsVirtualKeyCode: input.keyCode,
          modifiers: input.modifiers,
          ...(text === undefined ? {} : { text }),
        });
        return;
      }
      case 'text':
        await session.send('Input.insertText', { text: input.text });
        return;
    }
  }

  /** Stops the screencast and detaches, which also ends the focus emulation. */
  async stop(): Promise<void> {
    if (this.#stopped) {
      return;
    }
    this.#stopped = true;
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    await this.#session.send('Page.stopScreencast').catch(() => undefined);
    await this.#connection.send('Target.detachFromTarget', { sessionId: this.#sessionId }).catch(() => undefined);
  }

  async #startScreencast(): Promise<void> {
    const { maxWidth, maxHeight, quality } = this.#limit;
    await this.#session.send('Page.startScreencast', { format: 'jpeg', quality, maxWidth, maxHeight, everyNthFrame: 1 });
  }

  #onFrame(event: Protocol.Page.ScreencastFrameEvent): void {
    if (this.#stopped) {
      return;
    }
    this.#pending = event;
    this.#unacked.push(event.sessionId);
    if (this.#timer) {
      return;
    }
    const wait = Math.max(0, this.#lastSentAt + 1000 / this.#limit.fps - Date.now());
    this.#timer = setTimeout(() => this.#flush(), wait);
  }

  #flush(): void {
    this.#timer = null;
    const event = this.#pending;
    this.#pending = null;
    if (!event || this.#stopped) {
      return;
    }
    this.#lastSentAt = Date.now();
    for (const frameId of this.#unacked.splice(0)) {
      this.#session.send('Page.screencastFrameAck', { sessionId: frameId }).catch(() => undefined);
    }
    // The frame header sits in the first few hundred bytes; decoding the whole image per frame would be waste.
    const size = jpegSize(Buffer.from(event.data.slice(0, 8192), 'base64'));
    const { metadata } = event;
    const picture: TabPicture = {
      tabId: this.tabId,
      data: event.data,
      width: size?.width ?? metadata.deviceWidth,
      height: size?.height ?? metadata.deviceHeight,
      timestamp: metadata.timestamp === undefined ? Date.now() : Math.round(metadata.timestamp * 1000),
      metadata: { deviceWidth: metadata.deviceWidth, deviceHeight: metadata.deviceHeight, offsetTop: metadata.offsetTop, pageScaleFactor: metadata.pageScaleFactor },
    };
    this.last = picture;
    this.#deliver(picture);
  }
}
