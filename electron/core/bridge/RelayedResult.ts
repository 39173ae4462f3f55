/**
 * A tool result as the daemon serialized it: the JSON bytes of the `result` member of its reply, which the stdio
 * server writes under the client's request id as they are. The daemon is the same tabmux (checked in the hello) and
 * builds every tool result itself, so the bridge need not parse what it only passes on.
 */
export class RelayedResult {
  constructor(readonly json: Buffer) {}
}
