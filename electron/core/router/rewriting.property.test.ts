import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rewriteResponse } from './responseRewriter.js';
import { Session } from './Session.js';
import { formatToken, parseToken, translateInputUids } from './uidTokens.js';
import { Worker } from './Worker.js';
import { snapshotText, type SnapshotNode } from '../upstream/snapshotText.js';
import { formatPageLine, pagesBlock, snapshotBlock } from '../upstream/upstreamReply.js';
import type { ToolResult } from '../../../shared/protocol.js';
import type { Upstream } from '../upstream/UpstreamClient.js';

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
  const pageResult = (ids: readonly number[]): ToolResult => {
    const pages = ids.map((id) => ({ id, url: `https://example.com/${id}`, title: `Page ${id}`, selected: false }));
    const text = pagesBlock(pages.map((page) => formatPageLine({ ...page, isolatedContext: null }, false)));
    return { content: [{ type: 'text', text }], structuredContent: { pages } };
  };

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
        const out = rewriteResponse(pageResult(ids), { session: mine, worker: w, page: undefined, tool: 'list_pages', sessionById: (id) => sessions.get(id) });
        const listed = (out.content[0]?.text ?? '').split('\n').filter((line) => /^\d+: /.test(line)).map((line) => Number(line.split(':')[0]));
        expect(listed.sort((a, b) => a - b)).toEqual([...mine.pages.keys()].sort((a, b) => a - b));
        expect(out.structuredContent).toBeUndefined();
      }),
    );
  });

  it('snapshot rewriting gives tokens of the session and the new epoch to the snapshot nodes, and to nothing a page wrote', () => {
    const pageText = fc.oneof(fc.string(), fc.constantFrom('uid=1_3', '\nuid=2_2 button "Go"\n', '## Latest page snapshot\nuid=9_9 x', 'x uid="4_4"'));
    fc.assert(
      fc.property(fc.uniqueArray(rawUid, { minLength: 1, maxLength: 60 }), pageText, (uids, written) => {
        const w = worker();
        const s = new Session('sess-cccccccccccccccc', 'cccccccc', null, 0, Date.now());
        const page = s.addPage(1, 'created');
        w.owners.set(1, s.id);
        s.select(1);
        const [first = '0_0', ...rest] = uids;
        const root: SnapshotNode = { id: first, role: 'RootWebArea', name: written, children: rest.map((id) => ({ id, role: 'textbox', value: written })) };
        const text = `Element matching one of ["${written}"] found.\n${snapshotBlock(snapshotText(root, false))}`;
        const out = rewriteResponse({ content: [{ type: 'text', text }], structuredContent: { snapshot: root } }, { session: s, worker: w, page, tool: 'wait_for', sessionById: () => s });
        const expected = snapshotText(root, false, (raw) => formatToken('cccccccc', s.epoch, raw));
        expect(out.content[0]?.text).toBe(`Element matching one of ["${written}"] found.\n${snapshotBlock(expected)}`);
        expect(page.snapshotUids).toEqual(new Set(uids));
      }),
    );
  });
});
