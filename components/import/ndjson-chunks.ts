// Where to cut an NDJSON file into request bodies: at the first line end at or past `target` bytes, so each body
// holds whole records (a record is never split across two requests) and is about `target` long (one long line
// makes a longer one: the ingest endpoint streams its body and takes records up to 16 MB). Reads the file once,
// as a stream: a file larger than memory is cut without being held.

export interface ByteRange {
  start: number;
  end: number;
}

const NEWLINE = 10;

export async function* ndjsonRanges(file: Blob, target: number): AsyncGenerator<ByteRange> {
  const reader = file.stream().getReader();
  let start = 0;
  let offset = 0; // of the current buffer in the file
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    const bytes = r.value;
    // the first line end at or after start + target, within this buffer
    let from = Math.max(0, start + target - 1 - offset);
    while (from < bytes.length) {
      const at = bytes.indexOf(NEWLINE, from);
      if (at < 0) break;
      const end = offset + at + 1;
      yield { start, end };
      start = end;
      from = Math.max(at + 1, start + target - 1 - offset);
    }
    offset += bytes.length;
  }
  if (start < file.size) yield { start, end: file.size };
}

/** How many line ends `bytes` holds: the lines a slice moves the next slice's line numbers on by. */
export function lineEnds(bytes: Uint8Array): number {
  let n = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) n++;
  return n;
}
