import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { SupervisorBridge, SupervisorMethod } from '../../shared/supervisor.js';
import { IPC_CALL, IPC_EVENT } from '../../shared/ipcChannels.js';

/**
 * The keyhole between the window and the main process: exactly `call` and `subscribe` on one channel prefix. A new
 * supervisor method is a row in the shared API table; nothing here changes. The main process checks every call.
 */
const bridge: SupervisorBridge = {
  call: (method: SupervisorMethod, params: unknown) => ipcRenderer.invoke(IPC_CALL, method, params),
  subscribe: (listener: (event: unknown) => void) => {
    const handler = (_event: IpcRendererEvent, payload: unknown): void => listener(payload);
    ipcRenderer.on(IPC_EVENT, handler);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT, handler);
    };
  },
};

contextBridge.exposeInMainWorld('tabmux', bridge);
