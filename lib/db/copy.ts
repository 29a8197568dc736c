import "server-only";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/**
 * Runs `COPY … FROM STDIN` on `client` with `text` (COPY text format, lib/db/copy-text.ts) as the data and
 * resolves with the number of rows copied once PostgreSQL has accepted them; rejects with PostgreSQL's error.
 */
export function copyIn(client: pg.PoolClient | pg.Client, sql: string, text: string): Promise<number> {
  const stream = client.query(copyFrom(sql));
  return new Promise<number>((resolve, reject) => {
    stream.once("error", reject);
    stream.once("finish", () => resolve(stream.rowCount));
    stream.end(text);
  });
}
