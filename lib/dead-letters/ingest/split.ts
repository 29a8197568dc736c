// Splits a request body into record texts without holding the whole body: NDJSON by lines, a JSON array by
// its top-level elements, a bare object (or several concatenated) by top-level values. Each record keeps its
// exact text, so number lexemes reach the AFC hash untouched. A malformed record only spoils itself.

export interface RecordText {
  index: number;
  /** NDJSON: the record's line in the body, from 1, blank lines counted (the index skips them) */
  line?: number;
  /** the record's text; "" while `bytes` holds it undecoded */
  text: string;
  /**
   * A long NDJSON line's bytes, decoded where the record is normalized (normalizeRecord, on a worker thread):
   * decoding a large line and handing the text to a thread would hold the thread reading the body; bytes cross as a
   * copy.
   */
  bytes?: Uint8Array;
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

/** How many bytes are read, copied or encoded between two turns of the event loop (~10 ms of work here). */
const COPY_SLICE = 1024 * 1024;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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

  let sinceTurn = 0;
  for await (const chunk of chunks) {
    // A body already buffered arrives without a turn of the event loop between chunks: take one now and then.
    sinceTurn += chunk.length;
    if (sinceTurn >= COPY_SLICE) {
      sinceTurn = 0;
      await nextTurn();
    }
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
  sharedFrom = Infinity,
): AsyncGenerator<Uint8Array | typeof LINE_TOO_LONG> {
  let parts: Uint8Array[] = []; // the unfinished line, as it arrived (joined once, at its end)
  let held = 0; // bytes of the unfinished line
  let tooLong = false; // the unfinished line passed maxBytes: dropped, its end still sought
  // A line past `sharedFrom` bytes goes on in shared memory, copied there chunk by chunk as it arrives: a worker
  // thread is handed it without a copy (postMessage copies a plain buffer byte by byte on the sending thread),
  // and no join of a large line holds the event loop at its end. Sized for the longest line taken; pages
  // never written are never touched, so the slack costs no memory.
  let shared: Uint8Array | null = null;
  const sharedCapacity = Number.isFinite(maxBytes) ? maxBytes : 0;
  const hold = (part: Uint8Array) => {
    if (!shared && sharedCapacity > 0 && held + part.length >= sharedFrom) {
      shared = new Uint8Array(new SharedArrayBuffer(sharedCapacity));
      let at = 0;
      for (const p of parts) {
        shared.set(p, at);
        at += p.length;
      }
      parts = [];
    }
    if (shared) shared.set(part, held);
    // Copied: the stream may reuse its buffer for the next chunk.
    else parts.push(Buffer.from(part));
    held += part.length;
  };
  const end = (tail: Uint8Array): Uint8Array | typeof LINE_TOO_LONG => {
    const long = tooLong || held + tail.length > maxBytes;
    let whole: Uint8Array = tail;
    if (!long) {
      if (shared || (sharedCapacity > 0 && held + tail.length >= sharedFrom)) {
        hold(tail);
        whole = (shared as Uint8Array | null)?.subarray(0, held) ?? tail;
      } else whole = join(parts, tail);
    }
    parts = [];
    held = 0;
    tooLong = false;
    shared = null;
    if (long) return LINE_TOO_LONG;
    return whole.length > 0 && whole[whole.length - 1] === CR ? whole.subarray(0, whole.length - 1) : whole;
  };
  let sinceTurn = 0;
  for await (const raw of chunks) {
    const chunk = typeof raw === "string" ? Buffer.from(raw) : raw;
    // As in splitJson: a buffered body gives the event loop no turn between chunks otherwise.
    sinceTurn += chunk.length;
    if (sinceTurn >= COPY_SLICE) {
      sinceTurn = 0;
      await nextTurn();
    }
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      yield end(tooLong ? new Uint8Array(0) : chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length && !tooLong) {
      if (held + chunk.length - start > maxBytes) {
        tooLong = true;
        parts = [];
        shared = null;
      } else {
        hold(chunk.subarray(start));
      }
    }
  }
  if (held > 0 || tooLong) yield end(new Uint8Array(0));
}

const join = (parts: Uint8Array[], tail: Uint8Array): Uint8Array => (parts.length === 0 ? tail : Buffer.concat([...parts, tail]));

/**
 * The parts joined into shared memory, which a worker thread is handed without a copy (a plain buffer is
 * copied by postMessage, all on the sending thread). Copied a slice at a time with a turn of the event loop
 * between slices, so a large line does not hold it in one go.
 */
async function joinShared(parts: Uint8Array[], length: number): Promise<Uint8Array> {
  const out = new Uint8Array(new SharedArrayBuffer(length));
  let at = 0;
  let sinceTurn = 0;
  for (const part of parts) {
    for (let from = 0; from < part.length; from += COPY_SLICE) {
      const slice = part.subarray(from, from + COPY_SLICE);
      out.set(slice, at);
      at += slice.length;
      sinceTurn += slice.length;
      if (sinceTurn >= COPY_SLICE) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
  }
  return out;
}

/**
 * A long text as UTF-8 in shared memory (see joinShared), encoded a slice at a time between turns of the event
 * loop. A slice never ends between the two halves of a surrogate pair, which would encode as two U+FFFD.
 */
export async function encodeShared(text: string): Promise<Uint8Array> {
  // Three bytes per UTF-16 unit at most; pages never written are never touched, so the slack costs no memory.
  const out = Buffer.from(new SharedArrayBuffer(text.length * 3));
  let at = 0;
  for (let i = 0; i < text.length;) {
    let end = Math.min(text.length, i + COPY_SLICE);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    at += out.write(text.slice(i, end), at, "utf8");
    i = end;
    if (i < text.length) await nextTurn();
  }
  return new Uint8Array(out.buffer, 0, at);
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

/** NDJSON lines this long are handed on as bytes (RecordText.bytes); shorter ones cost less to decode here. */
export const DEFER_DECODE_BYTES = 64 * 1024;

/** What a line handed on as bytes says once decoded, when it held only whitespace (a short one is skipped). */
export const BLANK_LINE = "a blank line of 64 KiB or more: whitespace only, no record";

/** The text of a record handed on as bytes (RecordText.bytes), or why it is rejected. */
export function decodeDeferred(bytes: Uint8Array): { text: string; error?: string } {
  // TextDecoder refuses a view of shared memory: decoded from a private copy.
  const { text, utf8 } = decodeLine(bytes.buffer instanceof SharedArrayBuffer ? new Uint8Array(bytes) : bytes, true);
  if (!utf8) return { text, error: NOT_UTF8 };
  return text.trim() === "" ? { text, error: BLANK_LINE } : { text };
}

/**
 * NDJSON lines → records, from bytes: each line is decoded on its own, so a line that is not UTF-8 (or longer
 * than a record may be) is rejected by itself and the lines around it go on. Blank lines are skipped without
 * shifting the indices of the records around them.
 */
export async function* splitNdjsonBytes(chunks: AsyncIterable<Uint8Array>, maxRecordBytes = MAX_RECORD_BYTES): AsyncGenerator<RecordText> {
  let index = 0;
  let lineNo = 0;
  for await (const line of byteLines(chunks, maxRecordBytes, DEFER_DECODE_BYTES)) {
    lineNo++;
    if (line === LINE_TOO_LONG) {
      yield { index: index++, line: lineNo, text: "", error: RECORD_TOO_LARGE };
      continue;
    }
    if (line.byteLength >= DEFER_DECODE_BYTES) {
      // In shared memory (byteLines joined it there), unless it came whole in one chunk: then copied there.
      yield {
        index: index++,
        line: lineNo,
        text: "",
        bytes: line.buffer instanceof SharedArrayBuffer ? line : await joinShared([line], line.length),
      };
      continue;
    }
    const { text, utf8 } = decodeLine(line, true);
    if (text.trim() === "") continue;
    yield utf8 ? { index: index++, line: lineNo, text } : { index: index++, line: lineNo, text, error: NOT_UTF8 };
  }
}
