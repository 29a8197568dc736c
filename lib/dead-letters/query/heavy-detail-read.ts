import "server-only";
import pg from "pg";
import type { MaskRules } from "../../masking/rules";
import { heavyDetailJson } from "./detail-answer";
import { notFound, readHeavyDetailRow } from "./detail";

/**
 * Reads the record on a connection of its own, in one snapshot (the row and its failures agree), and builds its
 * answer. Runs on the thread that calls it: an ingest thread (lib/api/off-thread-reads.ts "detail") when there are any.
 */
export async function heavyDetailJsonFrom(databaseUrl: string, id: string, rules: MaskRules | null): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const read = await readHeavyDetailRow(client, id);
    await client.query("COMMIT");
    if (!read) throw notFound(id);
    return heavyDetailJson(read.row, read.failures, read.texts, rules);
  } finally {
    await client.end().catch(() => {});
  }
}
