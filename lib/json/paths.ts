// Where a value sits in JSON text: "payload.fare_amount_cents" → the character range of that member, so the
// editor can underline the field an error is about. A small position-tracking parser (the editor's own syntax
// tree belongs to CodeMirror, this stays testable without a DOM). Returns null for text that does not parse.

export interface Range {
  from: number;
  to: number;
}

export function locateMembers(text: string): Map<string, Range> | null {
  const out = new Map<string, Range>();
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (): never => {
    throw new SyntaxError(`bad JSON at ${i}`);
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (text[i] !== '"') fail();
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string) => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const keyStart = i;
        const key = string();
        ws();
        if (text[i++] !== ":") fail();
        const child = path ? `${path}.${key}` : key;
        value(child);
        out.set(child, { from: keyStart, to: i });
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i++] === "}") return;
        fail();
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (let n = 0; ; n++) {
        ws();
        const start = i;
        value(`${path}.${n}`);
        out.set(`${path}.${n}`, { from: start, to: i });
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i++] === "]") return;
        fail();
      }
    }
    if (c === '"') return void string();
    const m = /^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail();
    i += m![0].length;
  };
  try {
    value("");
    ws();
    return i === text.length ? out : null;
  } catch {
    return null;
  }
}

/** The range of the deepest known member on `path` (dotted; a leading "payload." is ignored), else the whole text. */
export function rangeOf(members: Map<string, Range> | null, path: string, length: number): Range {
  const parts = path
    .replace(/^payload\.?/, "")
    .split(".")
    .filter(Boolean);
  for (let n = parts.length; n > 0 && members; n--) {
    const hit = members.get(parts.slice(0, n).join("."));
    if (hit) return hit;
  }
  return { from: 0, to: Math.min(length, 1) };
}
