import type { Readable } from "node:stream";
import { byteLines, decodeLine, LINE_TOO_LONG } from "@/lib/dead-letters/ingest/split";

/** One input line: its text, or why it cannot be read (then `text` shows it with U+FFFD, for messages only). */
export interface InputLine {
  text: string;
  error: string | null;
}

export const NOT_UTF8_LINE = "not valid UTF-8: the line holds bytes that are not UTF-8 text (sent as Latin-1?)";

/**
 * The lines of a byte stream for `geometry repair`, `afc hash|validate` and `ledger import`, split as ingest
 * splits NDJSON (byteLines: at LF only — a lone CR is JSON whitespace, and readline splitting there made line N
 * of the output stop belonging to line N of the input; Python's `for line in sys.stdin` splits on LF too) and
 * decoded line by line, strictly: bytes that are not UTF-8 make that line an error rather than U+FFFD, which
 * would have been hashed as if the producer had sent it. Unlike ingest, blank lines are kept (output stays line
 * for line) and only the first line's byte order mark is dropped. `close` ends the iteration early (the reader
 * of stdout went away).
 */
export function readLines(input: Readable): { lines: AsyncIterable<InputLine>; close: () => void } {
  let closed = false;
  async function* lines(): AsyncGenerator<InputLine> {
    let first = true;
    try {
      for await (const bytes of byteLines(input)) {
        if (bytes === LINE_TOO_LONG) continue; // never: no limit is set
        const { text, utf8 } = decodeLine(bytes, first);
        first = false;
        yield { text, error: utf8 ? null : NOT_UTF8_LINE };
      }
    } catch (err) {
      if (!closed) throw err; // destroyed by close(): the iteration just ends
    }
  }
  return {
    lines: lines(),
    close: () => {
      closed = true;
      input.destroy();
    },
  };
}
