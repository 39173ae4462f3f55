import type { daemonEventSchema } from '../../../shared/modelSchemas.js';
import type { controlResultSchema } from '../../../shared/protocol.js';

export interface ProtocolSchemas {
  controlResultSchema: typeof controlResultSchema;
  daemonEventSchema: typeof daemonEventSchema;
}

let loaded: ProtocolSchemas | undefined;
let loading: Promise<ProtocolSchemas> | undefined;

/**
 * The protocol's result and event schemas, loaded on first use. Building them (and the schema library) is most of
 * what a short-lived client would spend starting up, and the stdio bridge answers `initialize` and `tools/list`
 * before it needs them.
 */
export function loadProtocolSchemas(): Promise<ProtocolSchemas> {
  loading ??= Promise.all([import('../../../shared/protocol.js'), import('../../../shared/modelSchemas.js')]).then(([protocol, model]) => {
    loaded = { controlResultSchema: protocol.controlResultSchema, daemonEventSchema: model.daemonEventSchema };
    return loaded;
  });
  return loading;
}

/** The schemas if they are loaded already, so a caller that has them can stay synchronous. */
export function loadedProtocolSchemas(): ProtocolSchemas | undefined {
  return loaded;
}
