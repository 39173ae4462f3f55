/**
 * The constants of the control protocol, apart from its schemas: a client that only connects and says hello (the
 * stdio bridge) needs these without loading the schema library.
 */
export const PROTOCOL_VERSION = 1;

/** Notification method that carries a `DaemonEvent` to subscribed connections. */
export const EVENT_METHOD = 'tabmux/event';

/**
 * How long a daemon being restarted lets the calls under way finish, and answers them, before it lets its connections
 * go; calls it kept from running fail with `daemon_restarting`.
 */
export const RESTART_DRAIN_MS = 10_000;
