import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_LINE_BYTES } from '../../electron/core/transport/socketLimits.js';
import { useBadClientRig } from '../helpers/badClientRig.js';
import { tabmuxCode, toolText } from '../helpers/RawConnection.js';

/**
 * Malformed input over the raw socket (bad JSON, bad framing, oversized or deeply nested lines, wrong params): every
 * abuse gets a clear error reply, the offending connection keeps serving, and the daemon and other sessions carry
 * on. Handshake, session and connection faults are in robustnessLifecycle.test.ts.
 */

describe('daemon robustness against bad clients', () => {
  const rig = useBadClientRig();
  const { connect } = rig;

  it('answers a malformed JSON line with -32700 and keeps the connection', async () => {
    const connection = await connect();
    await connection.write('{"jsonrpc": "2.0", "id": 1, "method": \n');
    const reply = await connection.next();
    expect(reply.id).toBeNull();
    expect(reply.error?.code).toBe(-32700);
    expect(tabmuxCode(reply)).toBe('parse_error');
    expect(reply.error?.message).toMatch(/not valid JSON/);
    expect((await connection.status()).state).toBe('ready');
  });

  it('answers a non-object or a message without jsonrpc with invalid request', async () => {
    const connection = await connect();
    await connection.write('[1, 2, 3]\n');
    const array = await connection.next();
    expect(array.error?.code).toBe(-32600);
    expect(tabmuxCode(array)).toBe('invalid_request');
    expect(array.error?.message).toMatch(/JSON object/);

    await connection.write('42\n');
    expect(tabmuxCode(await connection.next())).toBe('invalid_request');

    await connection.write(`${JSON.stringify({ id: 7, method: 'tabmux/status' })}\n`);
    const noVersion = await connection.next();
    expect(noVersion.id).toBe(7);
    expect(noVersion.error?.code).toBe(-32600);
    expect(noVersion.error?.message).toMatch(/jsonrpc/);

    await connection.write(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 12 })}\n`);
    const badMethod = await connection.next();
    expect(badMethod.id).toBe(8);
    expect(tabmuxCode(badMethod)).toBe('invalid_request');
    expect((await connection.status()).state).toBe('ready');
  });

  it('answers an unknown method with -32601', async () => {
    const connection = await connect();
    const reply = await connection.request('tabmux/no.such.method', {});
    expect(reply.error?.code).toBe(-32601);
    expect(tabmuxCode(reply)).toBe('unknown_method');
    expect(reply.error?.message).toContain('tabmux/no.such.method');
    const mcp = await connection.request('resources/list', {});
    expect(mcp.error?.code).toBe(-32601);
    expect((await connection.status()).state).toBe('ready');
  });

  it('answers invalid UTF-8 with a parse error and keeps the connection', async () => {
    const connection = await connect();
    await connection.write(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]));
    const reply = await connection.next();
    expect(reply.error?.code).toBe(-32700);
    expect(reply.error?.message).toMatch(/UTF-8/);
    expect((await connection.status()).state).toBe('ready');
  });

  it('reassembles requests split across writes, including inside a multi-byte character, and accepts CRLF', async () => {
    const connection = await connect();
    const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 'split', method: 'tabmux/session.create', params: { label: 'größe' } })}\r\n`);
    const cut = bytes.indexOf(Buffer.from('ö')) + 1;
    await connection.write(bytes.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await connection.write(bytes.subarray(cut));
    const reply = await connection.next((message) => message.id === 'split');
    expect(reply.error).toBeUndefined();
    expect(reply.result).toMatchObject({ label: 'größe' });
    const id = (reply.result as { id: string }).id;
    expect((await connection.request('tabmux/session.close', { session: id })).error).toBeUndefined();
  });

  it('drops a line over the size limit with line_too_long and keeps the connection', async () => {
    const connection = await connect();
    const huge = `{"jsonrpc":"2.0","id":1,"method":"tabmux/status","params":{"pad":"${'x'.repeat(MAX_REQUEST_LINE_BYTES + 1024)}"}}\n`;
    await connection.write(huge);
    const reply = await connection.next();
    // The id is read from the head of the dropped line, so the client can match the error to its request.
    expect(reply.id).toBe(1);
    expect(tabmuxCode(reply)).toBe('line_too_long');
    expect(reply.error?.message).toContain(String(MAX_REQUEST_LINE_BYTES));
    // The rest of that line was discarded, not parsed as a request: exactly one error came back.
    expect((await connection.status()).state).toBe('ready');
    await expect(connection.next(() => true, 300)).rejects.toThrow(/no matching reply/);
    // A line just under the limit is still read and answered.
    const big = await connection.request('tabmux/session.create', { label: 'y'.repeat(MAX_REQUEST_LINE_BYTES - 200) });
    expect(tabmuxCode(big)).toBe('invalid_params');
    expect(big.error?.message).toMatch(/label/);
  });

  it('survives deeply nested JSON', async () => {
    const connection = await connect();
    const depth = 200_000;
    await connection.write(`${'['.repeat(depth)}\n`);
    expect(tabmuxCode(await connection.next())).toBe('parse_error');
    // Balanced nesting either parses (and is not a request) or is refused as too deep; both are answered.
    await connection.write(`${'['.repeat(depth)}${']'.repeat(depth)}\n`);
    expect(['invalid_request', 'parse_error']).toContain(tabmuxCode(await connection.next()));
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    await connection.write(`{"jsonrpc":"2.0","id":"deep","method":"tabmux/status","params":${nested}}\n`);
    const asParams = await connection.next((message) => message.id === 'deep' || message.id === null);
    expect(['invalid_params', 'parse_error']).toContain(tabmuxCode(asParams));
    expect((await connection.status()).state).toBe('ready');
  });

  it('answers deeply nested tool arguments with a tool error', async () => {
    const connection = await connect();
    const created = await connection.request('tabmux/session.create', { label: 'deep' });
    const id = (created.result as { id: string }).id;
    expect((await connection.request('tabmux/session.bind', { session: id })).error).toBeUndefined();
    const depth = 100_000;
    const objects = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const arrays = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const requests = [
      `{"jsonrpc":"2.0","id":"deep1","method":"tools/call","params":{"name":"click","arguments":{"uid":${objects}}}}`,
      `{"jsonrpc":"2.0","id":"deep2","method":"tabmux/call","params":{"session":"${id}","name":"evaluate_script","arguments":{"function":"() => 1","args":${arrays}}}}`,
    ];
    for (const [index, request] of requests.entries()) {
      await connection.write(`${request}\n`);
      const reply = await connection.next((message) => message.id === `deep${index + 1}`);
      expect(toolText(reply)).toEqual({ text: expect.stringMatching(/^Error: /) as unknown, isError: true });
    }
    expect((await connection.status()).state).toBe('ready');
    expect((await connection.request('tabmux/session.close', { session: id })).error).toBeUndefined();
  });

  it('answers wrong param types with invalid_params', async () => {
    const connection = await connect();
    const reply = await connection.request('tabmux/session.bind', { session: 5 });
    expect(reply.error?.code).toBe(-32602);
    expect(tabmuxCode(reply)).toBe('invalid_params');
    expect(reply.error?.message).toMatch(/session/);
    expect(tabmuxCode(await connection.request('tabmux/session.attach', { session: rig.good.id, pageId: 'one' }))).toBe('invalid_params');
    expect(tabmuxCode(await connection.request('tabmux/session.create', { label: 'x'.repeat(10_000) }))).toBe('invalid_params');
    expect(tabmuxCode(await connection.request('tabmux/session.close', 'sess-0000000000000000'))).toBe('invalid_params');
    // tabmux/call, the method every call through `tabmux mcp serve` takes, is checked on a path of its own.
    for (const params of [
      { session: rig.good.id, name: 'list_pages', arguments: [] },
      { session: rig.good.id, name: 'list_pages', arguments: 'x' },
      { session: rig.good.id, name: 5 },
      { session: rig.good.id, name: 'x'.repeat(201) },
      { session: 's'.repeat(65), name: 'list_pages' },
      { name: 'list_pages' },
      ['list_pages'],
    ]) {
      const refused = await connection.request('tabmux/call', params);
      expect(tabmuxCode(refused), JSON.stringify(params).slice(0, 80)).toBe('invalid_params');
      expect(refused.error?.message).toMatch(/^invalid params for tabmux\/call: /);
    }
    // Arguments may be left out, as the schema allows.
    const listed = await connection.request('tabmux/call', { session: rig.good.id, name: 'list_pages' });
    expect(listed.error).toBeUndefined();
    expect(toolText(listed).isError).not.toBe(true);
    // A tool call on a connection that is not bound is refused, and malformed tools/call params are explained.
    expect(tabmuxCode(await connection.request('tools/call', { name: 'take_snapshot' }))).toBe('not_bound');
    expect((await connection.status()).state).toBe('ready');
  });
});
