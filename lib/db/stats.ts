import "server-only";
import type pg from "pg";

// Planner statistics the way autovacuum keeps them (analyze once 10% of a table + 50 rows changed since the
// last ANALYZE), for the few statements whose plan depends on them badly: after a bulk approval the statistics
// still say "1 approved record", and a replay batch's eligibility check over tens of thousands of records runs
// for minutes on a plan made for one. Where autovacuum runs this almost never finds anything to do; where it
// is off (some managed setups, shared test servers) it is the difference between seconds and minutes.

const ANALYZABLE = new Set(["dead_letter", "replay_item", "replay_batch"]);

/** At most one ANALYZE per table and process this often: a running drain changes replay_item faster than 10%. */
const MIN_INTERVAL_MS = 60_000;
const lastRun = new Map<string, number>();

/**
 * Runs ANALYZE on those of `tables` whose statistics are missing or stale. Returns the tables analyzed. Call it
 * outside a transaction (an ANALYZE inside one keeps its lock until the commit); SKIP_LOCKED passes over a table
 * another ANALYZE (or autovacuum) is working on.
 */
export async function freshenStatistics(db: pg.Pool | pg.PoolClient, tables: string[], nowMs = Date.now()): Promise<string[]> {
  const names = tables.filter((t) => ANALYZABLE.has(t) && nowMs - (lastRun.get(t) ?? -Infinity) >= MIN_INTERVAL_MS);
  if (names.length === 0) return [];
  const { rows } = await db.query<{ relname: string }>(
    `SELECT relname FROM pg_stat_user_tables
     WHERE schemaname = current_schema() AND relname = ANY($1::text[])
       AND (coalesce(last_analyze, last_autoanalyze) IS NULL OR n_mod_since_analyze > 50 + 0.1 * greatest(n_live_tup, 0))`,
    [names],
  );
  // Names come from the allow-list above, never from the caller's input.
  for (const { relname } of rows) {
    if (!ANALYZABLE.has(relname)) continue;
    lastRun.set(relname, nowMs);
    await db.query(`ANALYZE (SKIP_LOCKED) "${relname}"`);
  }
  return rows.map((r) => r.relname);
}
