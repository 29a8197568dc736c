import "server-only";
import type pg from "pg";
import { paramsOf, scopeSql, type RecordScope } from "../../scope/record-scope";
import { notFound } from "./detail";

/**
 * Throws the record's 404 unless it exists within the reader's scope: a record of another team answers as one
 * that does not exist (never 403), so its id confirms nothing. Every path that reads or changes one record by id
 * (its page and API, notes, timeline, reveal, actions, repair preview) passes here first.
 */
export async function assertRecordVisible(db: pg.Pool | pg.PoolClient, scope: RecordScope, id: string): Promise<void> {
  const values: unknown[] = [id];
  const { rowCount } = await db.query(
    `SELECT 1 FROM dead_letter d WHERE d.id = $1::bigint AND ${scopeSql(scope, paramsOf(values))}`,
    values,
  );
  if (!rowCount) throw notFound(id);
}
