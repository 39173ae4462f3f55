import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlsIn } from './redactUrl.js';

describe('redactUrl', () => {
  it('hides the user info and credential-like query values, and keeps the rest as written', () => {
    expect(redactUrl('https://me:pw@example.com/a?token=abc&page=2')).toEqual({ url: 'https://redacted:redacted@example.com/a?token=[redacted]&page=2', secrets: ['me', 'pw', 'abc'] });
    expect(redactUrl('https://ghp_abcdef@github.com/o/r.git').url).toBe('https://redacted@github.com/o/r.git');
    expect(redactUrl('https://example.com/?q=cats&b=%20x+y').url).toBe('https://example.com/?q=cats&b=%20x+y');
    expect(redactUrl('about:blank').url).toBe('about:blank');
    expect(redactUrl('not a url').url).toBe('not a url');
  });

  it('keeps a URL with no @, ?, # or ; exactly as written, nested ones included', () => {
    for (const url of ['about:blank', 'HTTPS://Example.COM/a/b', 'https://example.com/a%3Ftoken%3D1', 'blob:https://example.com/uuid', 'data:text/plain,https://example.com/x', 'not a url']) {
      expect(redactUrl(url)).toEqual({ url, secrets: [] });
    }
    // One delimiter is enough to be looked at, however deep the URL sits.
    expect(redactUrl('data:text/html,<a href=https://example.com/?token=abc>').url).toBe('data:text/html,<a href=https://example.com/?token=[redacted]>');
  });

  it('remembers percent-encoded values both as written and decoded', () => {
    const out = redactUrl('https://a:p%40ss%2Fword@example.com/?access_token=a%2Fb%20c&sig=x+y');
    expect(out.url).toBe('https://redacted:redacted@example.com/?access_token=[redacted]&sig=[redacted]');
    expect(out.secrets).toEqual(['a', 'p%40ss%2Fword', 'p@ss/word', 'a%2Fb%20c', 'a/b c', 'x+y', 'x y']);
  });

  it('matches parameter names percent-encoded, even twice', () => {
    expect(redactUrl('https://example.com/?%74oken=abc&access%5Fkey=def&%2574oken=ghi&x=1').url).toBe(
      'https://example.com/?%74oken=[redacted]&access%5Fkey=[redacted]&%2574oken=[redacted]&x=1',
    );
  });

  it('hides tokens in the fragment, as parameters or as a client-side route’s query', () => {
    expect(redactUrl('https://app.example/cb#access_token=AT123&token_type=Bearer&id_token=eyJ.x.y&expires_in=3600').url).toBe(
      'https://app.example/cb#access_token=[redacted]&token_type=[redacted]&id_token=[redacted]&expires_in=3600',
    );
    expect(redactUrl('https://app.example/#/callback?code=C0DE&state=s1').url).toBe('https://app.example/#/callback?code=[redacted]&state=s1');
    expect(redactUrl('https://app.example/docs#section-2').url).toBe('https://app.example/docs#section-2');
  });

  it('hides session ids in path parameters', () => {
    expect(redactUrl('https://shop.example/cart;jsessionid=ABC123;x=1/items').url).toBe('https://shop.example/cart;jsessionid=[redacted];x=1/items');
  });

  it('redacts a URL inside a parameter value', () => {
    const out = redactUrl(`https://idp.example/authorize?redirect_uri=${encodeURIComponent('https://app.example/cb?token=T0KEN#id_token=ID')}&client_id=c`);
    expect(out.url).toBe('https://idp.example/authorize?redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Ftoken%3D[redacted]%23id_token%3D[redacted]&client_id=c');
    expect(out.secrets).toEqual(['T0KEN', 'ID']);
  });

  it('handles about:, blob:, view-source:, data: and javascript: URLs', () => {
    expect(redactUrl('about:blank#access_token=abc').url).toBe('about:blank#access_token=[redacted]');
    expect(redactUrl('about:blank?token=abc').url).toBe('about:blank?token=[redacted]');
    expect(redactUrl('blob:https://a.example/0b1c?token=abc').url).toBe('blob:https://a.example/0b1c?token=[redacted]');
    expect(redactUrl('blob:https://a.example/0b1c-22').url).toBe('blob:https://a.example/0b1c-22');
    expect(redactUrl('view-source:https://u:p@a.example/?key=abc').url).toBe('view-source:https://redacted:redacted@a.example/?key=[redacted]');
    const page = 'data:text/html,<a href="https://a.example/?token=abc">x</a>';
    expect(redactUrl(page).url).toBe('data:text/html,<a href="https://a.example/?token=[redacted]">x</a>');
    const encoded = `data:text/html,${encodeURIComponent('<p>hello?token=x</p>')}`;
    expect(redactUrl(encoded).url).toBe(encoded);
    expect(redactUrl('javascript:fetch("https://a.example/?secret=abc")').url).toBe('javascript:fetch("https://a.example/?secret=[redacted]")');
  });
});

describe('redactUrlsIn', () => {
  it('redacts every URL in text, leaving the text around it and sentence punctuation', () => {
    const text = 'Successfully navigated to https://a.example/p?token=a%20b#id_token=X1.\n## Pages\n1: Title (https://u:pw@b.example/) [selected]';
    expect(redactUrlsIn(text).text).toBe('Successfully navigated to https://a.example/p?token=[redacted]#id_token=[redacted].\n## Pages\n1: Title (https://redacted:redacted@b.example/) [selected]');
    expect(redactUrlsIn('see (https://w.example/wiki/A_(b)?key=k1), then').text).toBe('see (https://w.example/wiki/A_(b)?key=[redacted]), then');
    expect(redactUrlsIn('url="https://a.example/?sig=abc" and \'https://b.example/#code=1\'').text).toBe('url="https://a.example/?sig=[redacted]" and \'https://b.example/#code=[redacted]\'');
  });

  it('reads a text of megabytes of any shape in one pass: long runs of letters, colons, closing brackets, full stops', () => {
    // Each of these once took time in the square of its length (minutes for a script of a megabyte), holding up the
    // daemon's event loop, and every session with it, while an agent's call was logged.
    const run = 'z'.repeat(1_000_000);
    expect(redactUrlsIn(`const s = "${run}"; fetch("https://a.example/?token=t1")`).text).toBe(`const s = "${run}"; fetch("https://a.example/?token=[redacted]")`);
    expect(redactUrlsIn('a1'.repeat(500_000)).text).toHaveLength(1_000_000);
    expect(redactUrlsIn('a:'.repeat(500_000)).text).toHaveLength(1_000_000);
    expect(redactUrlsIn(`https://a.example/?key=k1${')'.repeat(500_000)}`).text).toBe(`https://a.example/?key=[redacted]${')'.repeat(500_000)}`);
    expect(redactUrlsIn(`(https://a.example/?key=k1${'.'.repeat(500_000)}`).text).toBe(`(https://a.example/?key=[redacted]${'.'.repeat(500_000)}`);
  });

  it('leaves text without URLs, and URL-like words, as they are', () => {
    for (const text of ['plain words', 'uid=u:1:2:3 button "OK"', 'alert: hello', 'ratio 3:4, time 10:30']) {
      expect(redactUrlsIn(text)).toEqual({ text, secrets: [] });
    }
  });

  it('replaces a URL reaching the end of a text that was cut off, whose rest cannot be told', () => {
    expect(redactUrlsIn('go to https://u:secr', true).text).toBe('go to [redacted]');
    expect(redactUrlsIn('go to https://u:secr', false).text).toBe('go to https://u:secr');
    expect(redactUrlsIn('https://a.example/ then more', true).text).toBe('https://a.example/ then more');
  });
});
