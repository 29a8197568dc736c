import { createInterface } from "node:readline";
import type { Readable } from "node:stream";

/**
 * The lines of a text stream (LF or CRLF ends; never the whole input in memory), with a UTF-8 byte order mark
 * before the first line dropped: Windows tools (Notepad, PowerShell's Out-File) write one, it is not part of the
 * first record, and JSON parsers refuse it. `close` ends the iteration early (the reader of stdout went away).
 * Ingest's own splitter drops it too: TextDecoder does, per line (lib/dead-letters/ingest/split.ts).
 */
export function readLines(input: Readable): { lines: AsyncIterable<string>; close: () => void } {
  const reader = createInterface({ input, crlfDelay: Infinity });
  return { lines: withoutBom(reader), close: () => reader.close() };
}

async function* withoutBom(lines: AsyncIterable<string>): AsyncGenerator<string> {
  let first = true;
  for await (const line of lines) {
    yield first && line.startsWith("\uFEFF") ? line.slice(1) : line;
    first = false;
  }
}
