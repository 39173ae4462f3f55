import { describe, expect, it } from 'vitest';
import { redactArgs } from './redactArgs.js';

describe('redactArgs', () => {
  it('hides what fill, fill_form, type_text, press_key and handle_dialog type', () => {
    expect(redactArgs('fill', { uid: 'u:1:1:1_2', value: 'hunter2' })).toEqual({ args: { uid: 'u:1:1:1_2', value: '[redacted]' }, redacted: ['value'], secrets: ['hunter2'] });
    const form = redactArgs('fill_form', { elements: [{ uid: 'a', value: 'me@example.com' }, { uid: 'b', value: 's3cret!' }] });
    expect(form.args).toEqual({ elements: [{ uid: 'a', value: '[redacted]' }, { uid: 'b', value: '[redacted]' }] });
    expect(form.redacted).toEqual(['elements[0].value', 'elements[1].value']);
    expect(form.secrets).toEqual(['me@example.com', 's3cret!']);
    expect(redactArgs('type_text', { text: 'typed words' }).args).toEqual({ text: '[redacted]' });
    expect(redactArgs('press_key', { key: 'Control+A' }).args).toEqual({ key: '[redacted]' });
    expect(redactArgs('handle_dialog', { action: 'accept', promptText: 'pin 1234' }).args).toEqual({ action: 'accept', promptText: '[redacted]' });
  });

  it('keeps header names and hides their values', () => {
    const out = redactArgs('emulate', { extraHttpHeaders: '{"Authorization": "Bearer abc.def", "X-Trace": "1"}', colorScheme: 'dark' });
    expect(out.args).toEqual({ extraHttpHeaders: '{"Authorization":"[redacted]","X-Trace":"[redacted]"}', colorScheme: 'dark' });
    expect(out.redacted).toEqual(['extraHttpHeaders.Authorization', 'extraHttpHeaders.X-Trace']);
    expect(out.secrets).toContain('Bearer abc.def');
    expect(redactArgs('emulate', { extraHttpHeaders: 'not json Bearer x' }).args).toEqual({ extraHttpHeaders: '[redacted]' });
  });

  it('leaves known tools without typed values as they are, urls apart', () => {
    expect(redactArgs('click', { uid: 'u:1:2:3', dblClick: true })).toEqual({ args: { uid: 'u:1:2:3', dblClick: true }, redacted: [], secrets: [] });
    expect(redactArgs('wait_for', { text: ['Welcome'] }).args).toEqual({ text: ['Welcome'] });
    expect(redactArgs('navigate_page', { url: 'https://example.com/cb?code=abcdef&state=1' }).args).toEqual({ url: 'https://example.com/cb?code=[redacted]&state=1' });
  });

  it('hides a prompt answer given to evaluate_script, and keeps accept and dismiss', () => {
    expect(redactArgs('evaluate_script', { function: '() => prompt("PIN?")', dialogAction: '4711-secret' })).toEqual({
      args: { function: '() => prompt("PIN?")', dialogAction: '[redacted]' },
      redacted: ['dialogAction'],
      secrets: ['4711-secret'],
    });
    for (const dialogAction of ['accept', 'dismiss']) {
      expect(redactArgs('evaluate_script', { function: '() => 1', dialogAction })).toEqual({ args: { function: '() => 1', dialogAction }, redacted: [], secrets: [] });
    }
  });

  it('redacts URLs in every string argument: a whole url, and URLs written inside scripts and texts', () => {
    const out = redactArgs('navigate_page', { url: 'https://a.example/cb#access_token=AT 1&state=s', initScript: 'fetch("https://b.example/?key=K3Y")' });
    expect(out.args).toEqual({ url: 'https://a.example/cb#access_token=[redacted]&state=s', initScript: 'fetch("https://b.example/?key=[redacted]")' });
    expect(out.secrets).toEqual(['AT%201', 'AT 1', 'K3Y']);
    expect(redactArgs('evaluate_script', { function: '() => location.assign("https://x.example/#id_token=abc")' }).args).toEqual({ function: '() => location.assign("https://x.example/#id_token=[redacted]")' });
    expect(redactArgs('wait_for', { text: ['see https://u:pw@c.example/'] }).args).toEqual({ text: ['see https://redacted:redacted@c.example/'] });
  });

  it('remembers a typed value whole, URL and all', () => {
    expect(redactArgs('fill', { uid: 'u', value: 'https://a.example/?token=t0k' }).secrets).toEqual(['https://a.example/?token=t0k']);
  });

  it('hides anything named like a value or credential in tools it does not know, at any depth', () => {
    const out = redactArgs('some_new_tool', { name: 'x', password: 'pw1', nested: { apiToken: 't0k', list: [{ text: 'hello' }], count: 3 }, link: 'https://u:pass@example.com/' });
    expect(out.args).toEqual({
      name: 'x',
      password: '[redacted]',
      nested: { apiToken: '[redacted]', list: [{ text: '[redacted]' }], count: 3 },
      link: 'https://redacted:redacted@example.com/',
    });
    expect(out.redacted).toEqual(['password', 'nested.apiToken', 'nested.list[0].text']);
    expect(out.secrets).toEqual(['pw1', 't0k', 'hello', 'u', 'pass']);
  });

  it('does not change the arguments it was given', () => {
    const args = { elements: [{ uid: 'a', value: 'v' }] };
    redactArgs('fill_form', args);
    expect(args).toEqual({ elements: [{ uid: 'a', value: 'v' }] });
  });
});
