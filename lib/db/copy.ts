import "server-only";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/**
 * Runs `COPY … FROM STDIN` on `client` with `data` (COPY text format, lib/db/copy-text.ts: one text, or pieces
 * of text and UTF-8 bytes written in order) and resolves with the number of rows copied once PostgreSQL has
 * accepted them; rejects with PostgreSQL's error.
 */
export async function copyIn(
  client: pg.PoolClient | pg.Client,
  sql: string,
  data: string | readonly (string | Uint8Array)[],
): Promise<number> {
  const stream = client.query(copyFrom(sql));
  const done = new Promise<number>((resolve, reject) => {
    stream.once("error", reject);
    stream.once("finish", () => resolve(stream.rowCount));
  });
  if (typeof data === "string") stream.end(data);
  else {
    let failed = false;
    done.catch(() => (failed = true));
    // Bytes a slice at a time, waiting for the socket to drain: a large row written at once holds the event loop
    // in the socket write. Text goes whole (a slice could end inside a surrogate pair).
    for (const piece of data) {
      const step = typeof piece === "string" ? Math.max(piece.length, 1) : WRITE_SLICE;
      for (let at = 0; at < piece.length && !failed; at += step) {
        const slice = typeof piece === "string" ? piece : piece.subarray(at, at + step);
        if (!stream.write(slice)) await Promise.race([new Promise((r) => stream.once("drain", r)), done.catch(() => {})]);
      }
    }
    stream.end();
  }
  return done;
}

const WRITE_SLICE = 256 * 1024;
