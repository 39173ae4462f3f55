import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../../shared/activity.js';
import { TabmuxError } from '../../../shared/errors.js';
import { withPageSecrets, type CallRecord } from './CallRecord.js';
import { ActivityLogStore } from './ActivityLogStore.js';
import { ActivityPictures } from './ActivityPictures.js';
import { ActivityRecorder, MAX_LOGGED_ARGUMENT_CHARS } from './ActivityRecorder.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmx-recorder-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const SESSION = 'sess-00000000000000aa';

function call(tool: string, args: Record<string, unknown>, text: string, extra: Partial<CallRecord> = {}): CallRecord {
  return {
    sessionId: SESSION,
    label: 'bot',
    tool,
    args,
    at: 1000,
    durationMs: 5,
    result: { content: [{ type: 'text', text }] },
    pageBefore: { pageId: 1, url: 'https://site.example/login?token=abcd1234' },
    pageAfter: { pageId: 1, url: 'https://site.example/home' },
    tabAfter: null,
    opened: [],
    ...extra,
  };
}

function setup(keepValues: boolean) {
  const store = new ActivityLogStore({ dir: join(root, 'activity'), maxBytes: 1 << 20, maxAgeMs: 60_000, onError: (error) => { throw error; } });
  const emitted: ActivityEntry[] = [];
  const recorder = new ActivityRecorder({ store, keepValues, emit: (entry) => emitted.push(entry), startedAt: 36 ** 3 });
  return { store, recorder, emitted };
}

function files(): string {
  const dir = join(root, 'activity');
  return readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8')).join('');
}

describe('ActivityRecorder', () => {
  it('writes redacted entries and cuts typed values out of later answers of the session', async () => {
    const { recorder, emitted } = setup(false);
    void recorder.record(call('fill', { uid: 'u:1:1:1_2', value: 'Sup3rSecret' }, 'Successfully filled out the element'));
    void recorder.record(call('take_snapshot', {}, 'uid=1_2 textbox "Password" value="Sup3rSecret"'));
    void recorder.record(call('click', { uid: 'u:1:1:1_3' }, '', { result: undefined, error: new TabmuxError('stale_token', 'uid token u:1:1:1_3 is from an older snapshot') }));
    // Each entry is made (and announced) before the call's reply goes, so the log holds whatever a caller saw.
    expect(emitted).toHaveLength(3);
    await recorder.flush();
    expect(emitted.map((entry) => entry.outcome)).toEqual(['ok', 'ok', 'rejected']);
    expect(emitted[0]).toMatchObject({ id: '1000-0', session: SESSION, label: 'bot', args: { value: '[redacted]' }, redacted: ['value'], pageBefore: { url: 'https://site.example/login?token=[redacted]' } });
    expect(emitted[1]?.summary).toBe('uid=1_2 textbox "Password" value="[redacted]"');
    expect(emitted[2]).toMatchObject({ error: { code: 'stale_token' }, summary: 'uid token u:1:1:1_3 is from an older snapshot' });
    const written = files();
    expect(written).not.toContain('Sup3rSecret');
    expect(written).not.toContain('abcd1234');
    expect(written.trim().split('\n')).toHaveLength(3);
  });

  it('keeps the start of a long argument, at any depth, so one call cannot fill the log every session shares', async () => {
    const { recorder, emitted } = setup(true);
    const script = `() => ${JSON.stringify('x'.repeat(3_000_000))}`;
    void recorder.record(call('evaluate_script', { function: script, args: [{ nested: 'y'.repeat(10_000) }, 'short'] }, 'ok'));
    await recorder.flush();
    const args = emitted[0]?.args as { function: string; args: [{ nested: string }, string] };
    expect(args.function.startsWith('() => "xxx')).toBe(true);
    expect(args.function).toContain(`… (${script.length - MAX_LOGGED_ARGUMENT_CHARS} more characters)`);
    expect(args.args[0].nested).toContain('… (5904 more characters)');
    expect(args.args[1]).toBe('short');
    expect(files().length).toBeLessThan(3 * MAX_LOGGED_ARGUMENT_CHARS);
  });

  it('cuts a dialog’s text out of the answer that shows it, and keeps tokens out of summaries and page URLs', async () => {
    const { recorder, emitted } = setup(false);
    const shown = 'Successfully clicked on the element\n# Open dialog\nprompt: Your code is 9f8e7d (default value: "hi").\nCall handle_dialog to handle it before continuing.';
    const short = '# Open dialog\nalert: ok.\nCall handle_dialog to handle it before continuing.';
    void recorder.record(call('click', { uid: 'u:1:1:1_3' }, '', { result: withPageSecrets({ content: [{ type: 'text', text: shown }] }, ['prompt: Your code is 9f8e7d (default value: "hi").', 'Your code is 9f8e7d', 'hi']) }));
    void recorder.record(call('take_snapshot', {}, '', { result: withPageSecrets({ content: [{ type: 'text', text: short }] }, ['alert: ok.', 'ok', '']) }));
    void recorder.record(
      call('navigate_page', { url: 'https://site.example/cb#access_token=AT-1234&state=2' }, 'Successfully navigated to https://site.example/cb#access_token=AT-1234&state=2.', {
        pageAfter: { pageId: 1, url: 'https://u:pw%21@site.example/cb?sig=a%2Fb#id_token=ID-5678' },
      }),
    );
    await recorder.flush();
    expect(emitted[0]?.summary).toBe('Successfully clicked on the element\n# Open dialog\n[redacted]\nCall handle_dialog to handle it before continuing.');
    expect(emitted[1]?.summary).toBe('# Open dialog\n[redacted]\nCall handle_dialog to handle it before continuing.');
    expect(emitted[2]).toMatchObject({
      args: { url: 'https://site.example/cb#access_token=[redacted]&state=2' },
      summary: 'Successfully navigated to https://site.example/cb#access_token=[redacted]&state=2.',
      pageAfter: { url: 'https://redacted:redacted@site.example/cb?sig=[redacted]#id_token=[redacted]' },
    });
    const written = files();
    for (const secret of ['9f8e7d', 'AT-1234', 'pw%21', 'pw!', 'a%2Fb', 'ID-5678']) {
      expect(written).not.toContain(secret);
    }
  });

  it('keeps values in clear when the profile asks for it', async () => {
    const { recorder, emitted } = setup(true);
    void recorder.record(call('fill', { uid: 'u:1:1:1_2', value: 'Sup3rSecret' }, 'ok'));
    await recorder.flush();
    expect(emitted[0]).toMatchObject({ args: { value: 'Sup3rSecret' }, redacted: [] });
    expect(files()).toContain('Sup3rSecret');
  });

  it('records calls a stopping daemon cut off as cancelled, and keeps answers and refusals as they were', async () => {
    const store = new ActivityLogStore({ dir: join(root, 'activity'), maxBytes: 1 << 20, maxAgeMs: 60_000, onError: (error) => { throw error; } });
    const emitted: ActivityEntry[] = [];
    let stopping = false;
    const recorder = new ActivityRecorder({ store, keepValues: false, emit: (entry) => emitted.push(entry), stopping: () => stopping });
    const failed = (error: TabmuxError): CallRecord => call('click', { uid: 'u:1:1:1_3' }, '', { result: undefined, error });
    await recorder.record(failed(new TabmuxError('upstream_unavailable', 'the worker exited')));
    stopping = true;
    await recorder.record(failed(new TabmuxError('upstream_unavailable', 'the worker exited')));
    await recorder.record(failed(new TabmuxError('cancelled', 'the client disconnected')));
    await recorder.record(failed(new TabmuxError('stale_token', 'uid token u:1:1:1_3 is from an older snapshot')));
    await recorder.record(call('list_pages', {}, 'ok'));
    expect(emitted.map((entry) => [entry.outcome, entry.error?.code ?? null])).toEqual([
      ['worker_crashed', 'upstream_unavailable'],
      ['cancelled', 'daemon_stopping'],
      ['cancelled', 'daemon_stopping'],
      ['rejected', 'stale_token'],
      ['ok', null],
    ]);
    expect(emitted[1]?.error?.message).toMatch(/the daemon stopped while the call waited or ran \(the worker exited\)/);
    await store.close();
  });

  it('takes a picture after navigations, and after every page-changing call only when values are kept', async () => {
    for (const keepValues of [false, true]) {
      const store = new ActivityLogStore({ dir: join(root, `log-${keepValues}`), maxBytes: 1 << 20, maxAgeMs: 60_000, onError: (error) => { throw error; } });
      const saved = new ActivityPictures(join(root, `log-${keepValues}`), { maxBytes: 1 << 20, maxAgeMs: 60_000 });
      const asked: string[] = [];
      const emitted: ActivityEntry[] = [];
      const recorder = new ActivityRecorder({
        store,
        keepValues,
        emit: (entry) => emitted.push(entry),
        pictures: {
          store: saved,
          capture: (tabId) => {
            asked.push(tabId);
            return Promise.resolve({ tabId, data: Buffer.from([0xff, 0xd8, 0xff]).toString('base64'), width: 1, height: 1, timestamp: 0, metadata: { deviceWidth: 1, deviceHeight: 1, offsetTop: 0, pageScaleFactor: 1 } });
          },
          onError: (error) => {
            throw error;
          },
        },
      });
      void recorder.record(call('navigate_page', { url: 'https://site.example/' }, 'ok', { tabAfter: 'TAB1' }));
      void recorder.record(call('fill', { uid: 'u:1:1:1_2', value: 'typed' }, 'ok', { tabAfter: 'TAB1' }));
      void recorder.record(call('list_pages', {}, 'ok', { tabAfter: 'TAB1' }));
      void recorder.record(call('navigate_page', { url: 'chrome://version' }, '', { tabAfter: 'TAB1', result: undefined, error: new TabmuxError('url_denied', 'refused') }));
      void recorder.record(call('new_page', { url: 'https://site.example/' }, 'ok', { tabAfter: null }));
      await recorder.flush();
      await recorder.picturesTaken();
      const pictured = emitted.filter((entry) => entry.picture !== undefined).map((entry) => entry.tool);
      expect(pictured).toEqual(keepValues ? ['navigate_page', 'fill'] : ['navigate_page']);
      expect(asked).toHaveLength(pictured.length);
      for (const entry of emitted.filter((candidate) => candidate.picture !== undefined)) {
        expect(await saved.read(entry.picture ?? '')).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
      }
    }
  });
});
