/**
 * The part of the agents' build that runs only on a rare path, built to a file of its own (mcp-lazy.cjs, see
 * scripts/bundleCli.mjs): the modules the agents' commands import dynamically, and the schema library they build
 * their schemas with. The protocol's schemas check `tabmux/status` when a command starts a daemon and a bridge's
 * replies in session_id mode; a batch script is checked by its own; `mcp list` with no daemon running asks a worker
 * started alone, once the profile is found to exist. `mcp serve` and `mcp call` read neither this file nor the schema library. Each module is here
 * whole, so whatever such an import uses is found; the build takes its list of modules from the lines below.
 */
export * from '../../shared/protocol.js';
export * from '../../shared/modelSchemas.js';
export * from '../cli/batchScript.js';
export * from '../core/router/toolsWithoutBrowser.js';
export * from '../core/profile/ProfileStore.js';
