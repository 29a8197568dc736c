// JSON text → tokens for highlighting. Works on any text (a raw envelope need not be valid JSON): whatever is
// not a JSON token is passed through as plain text, so the concatenated tokens always equal the input. The
// view renders tokens as React text, never as HTML, so a payload can never inject markup.

export type TokenKind = "key" | "string" | "number" | "literal" | "punct" | "text";

export interface Token {
  kind: TokenKind;
  text: string;
}

const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|\b(true|false|null)\b|([{}[\],:])/g;

export function tokenizeJson(text: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const start = m.index;
    if (start > last) out.push({ kind: "text", text: text.slice(last, start) });
    if (m[1] !== undefined) {
      out.push({ kind: m[2] !== undefined ? "key" : "string", text: m[1] });
      if (m[2] !== undefined) out.push({ kind: "punct", text: m[2] });
    } else if (m[3] !== undefined) out.push({ kind: "number", text: m[3] });
    else if (m[4] !== undefined) out.push({ kind: "literal", text: m[4] });
    else out.push({ kind: "punct", text: m[0] });
    last = start + m[0].length;
  }
  if (last < text.length) out.push({ kind: "text", text: text.slice(last) });
  return out;
}
