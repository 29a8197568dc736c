// Splits a request body into record texts without holding the whole body: NDJSON by lines, a JSON array by
// its top-level elements, a bare object (or several concatenated) by top-level values. Each record keeps its
// exact text, so number lexemes reach the AFC hash untouched. A malformed record only spoils itself.

export interface RecordText {
  index: number;
  text: string;
  /** why this record is rejected whatever its text (a JSON array the body cut off) */
  error?: string;
}

/** A JSON array body that ends before its "]": the last (partial or missing) element says so. */
export const UNCLOSED_ARRAY = "the JSON array ends without its closing ]: the body was cut off here";

export type BodyFormat = "ndjson" | "json";

/** Lines → records; blank lines are skipped but do not shift indices of the records around them. */
export async function* splitNdjson(chunks: AsyncIterable<string>): AsyncGenerator<RecordText> {
  let carry = "";
  let index = 0;
  for await (const chunk of chunks) {
    carry += chunk;
    let nl: number;
    while ((nl = carry.indexOf("\n")) !== -1) {
      const line = carry.slice(0, nl).replace(/\r$/, "");
      carry = carry.slice(nl + 1);
      if (line.trim() !== "") yield { index: index++, text: line };
    }
  }
  if (carry.trim() !== "") yield { index: index++, text: carry.replace(/\r$/, "") };
}

const OPEN_BRACE = 123, CLOSE_BRACE = 125, OPEN_BRACKET = 91, CLOSE_BRACKET = 93;
const QUOTE = 34, BACKSLASH = 92, COMMA = 44;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * A JSON array's elements, or a stream of top-level values. Tracks only strings and nesting, so it stays
 * fast (one pass, no parse); the caller parses each element and rejects the ones that are not valid JSON.
 */
export async function* splitJson(chunks: AsyncIterable<string>): AsyncGenerator<RecordText> {
  let mode: "unknown" | "array" | "values" = "unknown";
  let depth = 0; // nesting inside the current element
  let inString = false;
  let escaped = false;
  let current: string[] = [];
  let start = -1; // start of the element within the current chunk, -1 when not inside one
  let index = 0;
  let arrayClosed = false;

  const flush = function* (): Generator<RecordText> {
    const text = current.join("").trim();
    current = [];
    if (text !== "") yield { index: index++, text };
  };

  for await (const chunk of chunks) {
    start = depth > 0 || current.length > 0 ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
        continue;
      }
      if (mode === "unknown") {
        if (isSpace(c)) continue;
        if (c === OPEN_BRACKET) {
          mode = "array";
          continue;
        }
        mode = "values";
      }
      if (mode === "array" && depth === 0) {
        if (isSpace(c)) continue;
        if (c === COMMA || c === CLOSE_BRACKET) {
          if (start !== -1) current.push(chunk.slice(start, i));
          yield* flush();
          start = -1;
          if (c === CLOSE_BRACKET) arrayClosed = true;
          continue;
        }
        if (arrayClosed) {
          // trailing garbage after the array: surface it as one malformed record
          if (start === -1) start = i;
          continue;
        }
      }
      if (start === -1) {
        if (isSpace(c)) continue;
        start = i;
      }
      if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth === 0 && mode === "values") {
          current.push(chunk.slice(start, i + 1));
          yield* flush();
          start = -1;
        } else if (depth < 0) depth = 0;
      }
    }
    if (start !== -1) current.push(chunk.slice(start));
  }
  if (mode === "array" && !arrayClosed) {
    // `[{…},` or `[{…}, {"kind": "spa` — what came before is whole and stands; the cut is reported, not silent.
    const text = current.join("").trim();
    current = [];
    yield { index: index++, text, error: UNCLOSED_ARRAY };
    return;
  }
  yield* flush();
}

export function splitBody(format: BodyFormat, chunks: AsyncIterable<string>): AsyncGenerator<RecordText> {
  return format === "ndjson" ? splitNdjson(chunks) : splitJson(chunks);
}

/** Decodes a byte stream to text chunks (UTF-8, multi-byte sequences split across chunks handled). */
export async function* decodeUtf8(stream: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  for await (const bytes of stream) {
    const text = decoder.decode(bytes, { stream: true });
    if (text) yield text;
  }
  const tail = decoder.decode();
  if (tail) yield tail;
}
