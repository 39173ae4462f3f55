/** The only IPC channels between the window and the main process; both share the `tabmux:` prefix. */
export const IPC_CALL = 'tabmux:call';
export const IPC_EVENT = 'tabmux:event';
