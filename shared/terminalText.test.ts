import { describe, expect, it } from 'vitest';
import { hasTerminalControl, terminalSafe } from './terminalText.js';

describe('terminalSafe', () => {
  it('writes every character that drives a terminal as its escape, and keeps tab, newline and the rest', () => {
    expect(terminalSafe('\u001b]0;pwned\u0007title\u001b[2J\rover\bx\u007f')).toBe('\\u001b]0;pwned\\u0007title\\u001b[2J\\u000dover\\u0008x\\u007f');
    expect(terminalSafe('8-bit CSI \u009b31m, NEL \u0085, \u0000')).toBe('8-bit CSI \\u009b31m, NEL \\u0085, \\u0000');
    expect(terminalSafe('file\u202Etxt.exe \u2066isolated\u2069')).toBe('file\\u202etxt.exe \\u2066isolated\\u2069');
    expect(terminalSafe('line one\n\tline two: héllo, שלום\u200F, 日本, 🙂')).toBe('line one\n\tline two: héllo, שלום\u200F, 日本, 🙂');
  });

  it('keeps JSON exact: what it escapes is only ever inside JSON strings', () => {
    const value = { label: 'a\u001b[31m\u009b\u202e\u007f\\\u0085', n: [1, '\t\n\r'] };
    const text = terminalSafe(JSON.stringify(value, null, 2));
    expect(hasTerminalControl(text)).toBe(false);
    expect(hasTerminalControl(JSON.stringify(value))).toBe(true);
    expect(JSON.parse(text)).toEqual(value);
  });
});
