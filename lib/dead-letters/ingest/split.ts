// Splits a request body into record texts without holding the whole body: NDJSON by lines, a JSON array by
// its top-level elements, a bare object (or several concatenated) by top-level values. Each record keeps its
// exact text, so number lexemes reach the AFC hash untouched. A malformed record only spoils itself.

export interface RecordText {
  index: number;
  text: string;
  /** why this record is rejected whatever its text (a JSON array the body cut off) */
  error?: string;
}

export const EMPTY_ELEMENT = "an empty array element: two commas in a row, or a comma first";
export const TRAILING_COMMA = "a comma before the closing ]: JSON has no empty last element";

/** A JSON array body that ends before its "]": the last (partial or missing) element says so. */
export const UNCLOSED_ARRAY = "the JSON array ends without its closing ]: the body was cut off here";

export type BodyFormat = "ndjson" | "json";

/**
 * The largest record taken (bytes of its text): the API's other JSON bodies stop at 16 MB, and a 100k-vertex
 * polygon is ~4 MB. A bigger one is rejected by itself, its text never held whole, so one record cannot grow the
 * server's memory with its size.
 */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;
export const RECORD_TOO_LARGE = `the record is larger than ${MAX_RECORD_BYTES / 1024 / 1024} MB; it was not read`;

const OPEN_BRACE = 123,
  CLOSE_BRACE = 125,
  OPEN_BRACKET = 91,
  CLOSE_BRACKET = 93;
const QUOTE = 34,
  BACKSLASH = 92,
  COMMA = 44;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * A JSON array's elements, or a stream of top-level values. Tracks only strings and nesting, so it stays
 * fast (one pass, no parse); the caller parses each element and rejects the ones that are not valid JSON.
 */
export async function* splitJson(chunks: AsyncIterable<string>, maxRecordChars = MAX_RECORD_BYTES): AsyncGenerator<RecordText> {
  let mode: "unknown" | "array" | "values" = "unknown";
  let depth = 0; // nesting inside the current element
  let inString = false;
  let escaped = false;
  let current: string[] = [];
  let start = -1; // start of the element within the current chunk, -1 when not inside one
  let index = 0;
  let arrayClosed = false;
  let afterComma = false; // the last separator was a comma and no element has started since
  let held = 0; // characters of the current element in `current`
  let tooLarge = false; // the current element passed maxRecordChars: its text is dropped, its end still sought

  const keep = (part: string) => {
    if (tooLarge) return;
    held += part.length;
    if (held > maxRecordChars) {
      tooLarge = true;
      current = [];
    } else {
      current.push(part);
    }
  };
  const flush = function* (): Generator<RecordText> {
    const text = current.join("").trim();
    current = [];
    held = 0;
    if (tooLarge) {
      tooLarge = false;
      yield { index: index++, text: "", error: RECORD_TOO_LARGE };
    } else if (text !== "") {
      yield { index: index++, text };
    }
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
        if (arrayClosed) {
          // anything after the closing ] (another ], a comma, text): surfaced as one malformed record
          if (start === -1) start = i;
          continue;
        }
        if (c === COMMA || c === CLOSE_BRACKET) {
          const empty = start === -1 && current.length === 0 && !tooLarge;
          if (empty && (c === COMMA || afterComma)) {
            // `[,…`, `…,,…` or `…,]`: JSON has no empty elements; said, not skipped
            yield { index: index++, text: "", error: c === COMMA ? EMPTY_ELEMENT : TRAILING_COMMA };
          } else {
            if (start !== -1) keep(chunk.slice(start, i));
            yield* flush();
          }
          afterComma = c === COMMA;
          start = -1;
          if (c === CLOSE_BRACKET) arrayClosed = true;
          continue;
        }
        afterComma = false;
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
          keep(chunk.slice(start, i + 1));
          yield* flush();
          start = -1;
        } else if (depth < 0) depth = 0;
      }
    }
    if (start !== -1) keep(chunk.slice(start));
  }
  if (mode === "array" && !arrayClosed) {
    // `[{…},` or `[{…}, {"kind": "spa` — what came before is whole and stands; the cut is reported, not silent.
    const text = current.join("").trim();
    current = [];
    yield { index: index++, text, error: tooLarge ? RECORD_TOO_LARGE : UNCLOSED_ARRAY };
    return;
  }
  yield* flush();
}

/**
 * Decodes a byte stream to text chunks (UTF-8, multi-byte sequences split across chunks handled). Bytes that are
 * not UTF-8 throw (a TypeError) rather than turn into U+FFFD: the raw envelope is kept as received, and a
 * replacement character would also change what the AFC hash is computed over.
 */
export async function* decodeUtf8(stream: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for await (const bytes of stream) {
    const text = decoder.decode(bytes, { stream: true });
    if (text) yield text;
  }
  const tail = decoder.decode();
  if (tail) yield tail;
}

export const NOT_UTF8 =
  "not valid UTF-8: the line holds bytes that are not UTF-8 text (sent as Latin-1?); it would not be stored as received";

const LF = 10,
  CR = 13;

/** What byteLines yields for a line longer than its limit (the line's bytes were dropped as they came). */
export const LINE_TOO_LONG = Symbol("line too long");

/**
 * The LF-ended lines of a byte stream, as bytes, a CR before the LF dropped (a lone CR is JSON whitespace, not an
 * end): never more than one line in memory, and a line over `maxBytes` is not held at all — it comes out as
 * LINE_TOO_LONG. A last line without LF counts; a trailing LF makes no empty line. Shared by ingest's NDJSON and
 * the CLI's line-reading commands (lib/cli/lines.ts).
 */
export async function* byteLines(
  chunks: AsyncIterable<Uint8Array | string>,
  maxBytes = Infinity,
): AsyncGenerator<Uint8Array | typeof LINE_TOO_LONG> {
  let parts: Uint8Array[] = []; // the unfinished line, as it arrived (joined once, at its end)
  let held = 0; // bytes in `parts`
  let tooLong = false; // the unfinished line passed maxBytes: dropped, its end still sought
  const end = (tail: Uint8Array): Uint8Array | typeof LINE_TOO_LONG => {
    const whole = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
    const long = tooLong || whole.length > maxBytes;
    parts = [];
    held = 0;
    tooLong = false;
    if (long) return LINE_TOO_LONG;
    return whole.length > 0 && whole[whole.length - 1] === CR ? whole.subarray(0, whole.length - 1) : whole;
  };
  for await (const raw of chunks) {
    const chunk = typeof raw === "string" ? Buffer.from(raw) : raw;
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      yield end(tooLong ? new Uint8Array(0) : chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length && !tooLong) {
      held += chunk.length - start;
      if (held > maxBytes) {
        tooLong = true;
        parts = [];
      } else {
        // Copied: the stream may reuse its buffer for the next chunk.
        parts.push(Buffer.from(chunk.subarray(start)));
      }
    }
  }
  if (parts.length > 0 || tooLong) yield end(new Uint8Array(0));
}

const STRICT = new TextDecoder("utf-8", { fatal: true });
const STRICT_WITH_BOM = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LOSSY = new TextDecoder("utf-8");
const LOSSY_WITH_BOM = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * One line's bytes as text, decoded on its own and strictly: `utf8` false when they are not UTF-8 (the text then
 * shows them as U+FFFD, for messages only: a replacement character stored or hashed would not be what was sent).
 * `dropBom`: a UTF-8 byte order mark in front is dropped (Windows tools write one; JSON parsers refuse it).
 */
export function decodeLine(bytes: Uint8Array, dropBom: boolean): { text: string; utf8: boolean } {
  try {
    return { text: (dropBom ? STRICT : STRICT_WITH_BOM).decode(bytes), utf8: true };
  } catch {
    return { text: (dropBom ? LOSSY : LOSSY_WITH_BOM).decode(bytes), utf8: false };
  }
}

/**
 * NDJSON lines → records, from bytes: each line is decoded on its own, so a line that is not UTF-8 (or longer
 * than a record may be) is rejected by itself and the lines around it go on. Blank lines are skipped without
 * shifting the indices of the records around them.
 */
export async function* splitNdjsonBytes(chunks: AsyncIterable<Uint8Array>, maxRecordBytes = MAX_RECORD_BYTES): AsyncGenerator<RecordText> {
  let index = 0;
  for await (const line of byteLines(chunks, maxRecordBytes)) {
    if (line === LINE_TOO_LONG) {
      yield { index: index++, text: "", error: RECORD_TOO_LARGE };
      continue;
    }
    const { text, utf8 } = decodeLine(line, true);
    if (text.trim() === "") continue;
    yield utf8 ? { index: index++, text } : { index: index++, text, error: NOT_UTF8 };
  }
}
