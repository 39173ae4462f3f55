/**
 * Whether a UTF-16 code unit drives a terminal instead of showing: C0 controls other than tab and newline (ESC starts
 * escape sequences, CR and backspace overwrite what was printed), DEL, the C1 controls U+0080–U+009F (U+009B is an
 * 8-bit CSI to terminals that read C1 in UTF-8), and the bidirectional embeddings, overrides and isolates
 * U+202A–U+202E and U+2066–U+2069, which reorder the rest of a line (the marks U+200E/U+200F open no scope, and are
 * common in right-to-left text).
 */
export function isTerminalControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/**
 * Text safe to print to a terminal: each such character is written as its JSON escape, `\u001b`. The same call keeps
 * JSON exact: `JSON.stringify` already escapes C0, and DEL, C1 and the bidirectional controls occur only inside its
 * strings, where `\uXXXX` is the same character to every JSON reader.
 */
export function terminalSafe(text: string): string {
  let out = '';
  let copied = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (isTerminalControl(code)) {
      out += `${text.slice(copied, index)}\\u${code.toString(16).padStart(4, '0')}`;
      copied = index + 1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Whether any character of `text` drives a terminal. */
export function hasTerminalControl(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    if (isTerminalControl(text.charCodeAt(index))) {
      return true;
    }
  }
  return false;
}
