import type { Readable } from "node:stream";

/** One input line: its text, or why it cannot be read (then `text` shows it with U+FFFD, for messages only). */
export interface InputLine {
  text: string;
  error: string | null;
}

const LF = 10, CR = 13;

export const NOT_UTF8_LINE = "not valid UTF-8: the line holds bytes that are not UTF-8 text (sent as Latin-1?)";

/**
 * The lines of a byte stream, never the whole input in memory. A line ends at LF only (a CR before it is
 * dropped): a lone CR is JSON whitespace, and splitting on it (as readline does) broke one tap into two lines and
 * line N of the output no longer belonged to line N of the input — Python's `for line in sys.stdin`, which the
 * producers' tools use, splits on LF too. Each line is decoded on its own and strictly: bytes that are not UTF-8
 * make that line an error rather than U+FFFD, which would have been hashed as if the producer had sent it
 * (ingest refuses such a line the same way, lib/dead-letters/ingest/split.ts). A UTF-8 byte order mark before the
 * first line is dropped: Windows tools (Notepad, PowerShell's Out-File) write one, and JSON parsers refuse it.
 * A trailing LF does not make an extra empty line. `close` ends the iteration early (the reader of stdout went
 * away).
 */
export function readLines(input: Readable): { lines: AsyncIterable<InputLine>; close: () => void } {
  let closed = false;
  return {
    lines: splitLines(input, () => closed),
    close: () => {
      closed = true;
      input.destroy();
    },
  };
}

async function* splitLines(input: AsyncIterable<Uint8Array>, closed: () => boolean): AsyncGenerator<InputLine> {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const lossy = new TextDecoder("utf-8", { ignoreBOM: true });
  let first = true;
  const line = (bytes: Uint8Array): InputLine => {
    let body = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.subarray(0, bytes.length - 1) : bytes;
    if (first && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) body = body.subarray(3);
    first = false;
    try {
      return { text: strict.decode(body), error: null };
    } catch {
      return { text: lossy.decode(body), error: NOT_UTF8_LINE };
    }
  };
  let parts: Uint8Array[] = []; // the unfinished line, as it arrived
  const take = (tail: Uint8Array): Uint8Array => {
    if (parts.length === 0) return tail;
    const all = Buffer.concat([...parts, tail]);
    parts = [];
    return all;
  };
  try {
    for await (const raw of input) {
      const chunk = typeof raw === "string" ? Buffer.from(raw) : raw;
      let start = 0;
      for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
        yield line(take(chunk.subarray(start, nl)));
        start = nl + 1;
      }
      // Copied: the stream may reuse its buffer for the next chunk.
      if (start < chunk.length) parts.push(Buffer.from(chunk.subarray(start)));
    }
  } catch (err) {
    if (closed()) return; // destroyed by close(): the iteration just ends
    throw err;
  }
  if (parts.length > 0 && !closed()) yield line(take(new Uint8Array(0)));
}
