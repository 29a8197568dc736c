import type pg from "pg";

// Planner statistics the way autovacuum keeps them (analyze once 10% of a table + 50 rows changed since the
// last ANALYZE), for the few statements whose plan depends on them badly: after a bulk approval the statistics
// still say "1 approved record", and a replay batch's eligibility check over 48k records ran 169 s on a plan
// made for one. Where autovacuum runs this almost never finds anything to do; where it is off (this
// machine's shared server, some managed setups) it is the difference between seconds and minutes.

const ANALYZABLE = new Set(["dead_letter", "replay_item", "replay_batch"]);

/** Runs ANALYZE on those of `tables` whose statistics are missing or stale. Returns the tables analyzed. */
export async function freshenStatistics(db: pg.Pool | pg.PoolClient, tables: string[]): Promise<string[]> {
  const names = tables.filter((t) => ANALYZABLE.has(t));
  const { rows } = await db.query<{ relname: string }>(
    `SELECT relname FROM pg_stat_user_tables
     WHERE schemaname = current_schema() AND relname = ANY($1::text[])
       AND (coalesce(last_analyze, last_autoanalyze) IS NULL OR n_mod_since_analyze > 50 + 0.1 * greatest(n_live_tup, 0))`,
    [names],
  );
  // Names come from the allow-list above, never from the caller's input.
  for (const { relname } of rows) if (ANALYZABLE.has(relname)) await db.query(`ANALYZE "${relname}"`);
  return rows.map((r) => r.relname);
}
