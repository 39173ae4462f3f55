import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rewriteResponse } from './responseRewriter.js';
import { Session } from './Session.js';
import { formatToken, parseToken, translateInputUids } from './uidTokens.js';
import { Worker } from './Worker.js';
import { joinSections, parsePageLine, rewriteOutputUids, splitSections } from './upstreamText.js';
import type { Upstream } from '../UpstreamClient.js';

const rawUid = fc.tuple(fc.nat(99_999), fc.nat(99_999)).map(([a, b]) => `${a}_${b}`);
const short = fc.stringMatching(/^[0-9a-f]{8}$/);

function worker(): Worker {
  return new Worker(0, 1, { isPaused: () => false, onChange: () => undefined, start: () => Promise.reject<Upstream>(new Error('no upstream in unit tests')) });
}

describe('uid tokens (property)', () => {
  it('parse inverts format for every session, epoch and raw uid', () => {
    fc.assert(
      fc.property(short, fc.integer({ min: 0, max: 999_999_999 }), rawUid, (s, epoch, raw) => {
        expect(parseToken(formatToken(s, epoch, raw))).toEqual({ short: s, epoch, raw });
      }),
    );
  });

  it('never accepts arbitrary strings that are not tokens as tokens of another shape', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const parsed = parseToken(value);
        if (parsed) {
          expect(formatToken(parsed.short, parsed.epoch, parsed.raw)).toBe(value);
        }
      }),
    );
  });

  it('output rewriting leaves no raw uid after "uid=" and changes nothing else', () => {
    const line = fc.tuple(fc.nat(8), rawUid, fc.stringMatching(/^[a-zA-Z ]{0,20}$/)).map(([indent, uid, name]) => `${' '.repeat(indent)}uid=${uid} button "${name}"`);
    fc.assert(
      fc.property(fc.array(line, { maxLength: 50 }), (lines) => {
        const text = lines.join('\n');
        const out = rewriteOutputUids(text, (raw) => formatToken('abcd1234', 3, raw));
        expect(out).not.toMatch(/uid=\d+_\d+/);
        expect(out.replace(/u:abcd1234:3:/g, '')).toBe(text);
      }),
    );
  });

  it('input translation touches only uid-bearing fields, whatever else the arguments hold', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string().filter((k) => !['uid', 'from_uid', 'to_uid', 'args', 'elements'].includes(k)), fc.jsonValue()), (args) => {
        let calls = 0;
        const out = translateInputUids(args, (token) => {
          calls++;
          return token;
        });
        expect(out).toEqual(args);
        expect(calls).toBe(0);
      }),
    );
  });
});

describe('page lists and snapshots (property)', () => {
  it('splitting into sections and joining again is lossless', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant('## Pages'), fc.constant('## Latest page snapshot'), fc.string()), { maxLength: 30 }), (lines) => {
        const text = lines.join('\n');
        expect(joinSections(splitSections(text))).toBe(text);
      }),
    );
  });

  it('page lines parse whatever the title and URL hold', () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.string({ maxLength: 40 }), fc.webUrl(), fc.boolean(), (id, title, url, selected) => {
        const clean = title.replace(/\n/g, ' ');
        const line = `${id}: ${clean ? `${clean} (${url})` : url}${selected ? ' [selected]' : ''}`;
        const page = parsePageLine(line);
        expect(page?.id).toBe(id);
        expect(page?.selected).toBe(selected);
      }),
    );
  });

  it('a session never sees another session page in a rewritten page list', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { minLength: 2, maxLength: 20 }), fc.nat(), (ids, seed) => {
        const w = worker();
        const mine = new Session('sess-aaaaaaaaaaaaaaaa', 'aaaaaaaa', null, 0, Date.now());
        const theirs = new Session('sess-bbbbbbbbbbbbbbbb', 'bbbbbbbb', null, 0, Date.now());
        const sessions = new Map([mine, theirs].map((s) => [s.id, s]));
        ids.forEach((id, index) => {
          const owner = (index + seed) % 3 === 0 ? mine : (index + seed) % 3 === 1 ? theirs : undefined;
          if (owner) {
            owner.addPage(id, 'created');
            w.owners.set(id, owner.id);
          }
        });
        const text = `## Pages\n${ids.map((id) => `${id}: Page ${id} (https://example.com/${id})`).join('\n')}`;
        const out = rewriteResponse({ content: [{ type: 'text', text }] }, { session: mine, worker: w, page: undefined, tool: 'list_pages', sessionById: (id) => sessions.get(id) });
        const listed = (out.content[0]?.text ?? '').split('\n').filter((line) => /^\d+: /.test(line)).map((line) => Number(line.split(':')[0]));
        expect(listed.sort((a, b) => a - b)).toEqual([...mine.pages.keys()].sort((a, b) => a - b));
      }),
    );
  });

  it('snapshot rewriting gives only tokens of the session and the new epoch', () => {
    fc.assert(
      fc.property(fc.array(rawUid, { minLength: 1, maxLength: 100 }), (uids) => {
        const w = worker();
        const s = new Session('sess-cccccccccccccccc', 'cccccccc', null, 0, Date.now());
        const page = s.addPage(1, 'created');
        w.owners.set(1, s.id);
        s.select(1);
        const text = `## Latest page snapshot\n${uids.map((uid) => `uid=${uid} generic`).join('\n')}`;
        const out = rewriteResponse({ content: [{ type: 'text', text }] }, { session: s, worker: w, page, tool: 'take_snapshot', sessionById: () => s });
        const tokens = [...(out.content[0]?.text ?? '').matchAll(/uid=(\S+)/g)].map((m) => m[1] ?? '');
        expect(tokens).toHaveLength(uids.length);
        for (const token of tokens) {
          expect(parseToken(token)).toMatchObject({ short: 'cccccccc', epoch: s.epoch });
        }
        expect(page.snapshotUids).toEqual(new Set(uids));
      }),
    );
  });
});
