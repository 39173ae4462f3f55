import { WebSocket } from 'ws';

/**
 * The test's own DevTools connection to the browser (its browser-level WebSocket, found on `/json/version`): ground
 * truth straight from Chrome, apart from the daemon's connection and the workers'.
 */
export class ChromeCdp {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  #next = 0;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data: Buffer) => {
      const message: unknown = JSON.parse(data.toString('utf8'));
      if (typeof message !== 'object' || message === null || !('id' in message) || typeof message.id !== 'number') {
        return;
      }
      const waiter = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if ('error' in message) {
        waiter?.reject(new Error(JSON.stringify(message.error)));
      } else if ('result' in message && typeof message.result === 'object' && message.result !== null) {
        waiter?.resolve({ ...message.result });
      } else {
        waiter?.resolve({});
      }
    });
  }

  static async connect(port: number): Promise<ChromeCdp> {
    const version: unknown = await (await fetch(`http://127.0.0.1:${port}/json/version`)).json();
    if (typeof version !== 'object' || version === null || !('webSocketDebuggerUrl' in version) || typeof version.webSocketDebuggerUrl !== 'string') {
      throw new Error('/json/version names no webSocketDebuggerUrl');
    }
    const socket = new WebSocket(version.webSocketDebuggerUrl, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new ChromeCdp(socket);
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** The bounds of the window holding a tab (by its target id, as `/json/list` shows it). */
  async windowBounds(targetId: string): Promise<{ width: number; height: number }> {
    const found = await this.send('Browser.getWindowForTarget', { targetId });
    const bounds = found['bounds'];
    if (typeof bounds !== 'object' || bounds === null || !('width' in bounds) || !('height' in bounds) || typeof bounds.width !== 'number' || typeof bounds.height !== 'number') {
      throw new Error(`no window bounds for ${targetId}`);
    }
    return { width: bounds.width, height: bounds.height };
  }

  /** The ids of the browser contexts besides the default one. */
  async browserContexts(): Promise<string[]> {
    const { browserContextIds } = await this.send('Target.getBrowserContexts');
    return Array.isArray(browserContextIds) ? browserContextIds.filter((id): id is string => typeof id === 'string') : [];
  }

  close(): void {
    this.#socket.close();
  }
}
