import "server-only";
import type pg from "pg";
import { activeRules } from "../../rules/rules";
import { arrivalRulesKey, type ArrivalRules } from "./arrival-facts";

// The active triage rules for arrivals, kept in the process between batches: several servers share the rules'
// table, so each batch's transaction reads which rule versions are active (one small indexed read, with the
// share lock a kill switch waits for), and the versions themselves (immutable) are read and parsed again only
// when that set changed. Ingest's threads get the set read at most every READ_EVERY_MS (they only prepare: the
// store's read decides, and reads back a record prepared for another set).

const READ_EVERY_MS = 1000;

/** By database (a test process opens several): the last set read. */
const byDatabase = new Map<string, ArrivalRules>();
const readAt = new WeakMap<pg.Pool, { at: number; rules: ArrivalRules }>();

/**
 * The active rules, read in the store's transaction under a share lock on their rows: a kill switch waits for
 * stores deciding with the rule, and every store after it commits sees the rule disabled.
 */
export async function lockedArrivalRules(client: pg.PoolClient): Promise<ArrivalRules> {
  const { rows } = await client.query<{ db: string; versions: string }>(
    `SELECT current_database() AS db, coalesce(string_agg(r.id || ':' || r.active_version, ',' ORDER BY r.id), '') AS versions
     FROM (SELECT id, active_version FROM rule WHERE status = 'active' FOR SHARE) r`,
  );
  const { db, versions } = rows[0]!;
  const cached = byDatabase.get(db);
  if (cached && cached.key === `${db}|${versions}`) return cached;
  const rules = versions === "" ? [] : await activeRules(client);
  const fresh = { key: `${db}|${arrivalRulesKey(rules)}`, rules };
  byDatabase.set(db, fresh);
  return fresh;
}

/** The active rules as ingest's threads prepare for them: at most READ_EVERY_MS old. */
export async function arrivalRules(pool: pg.Pool): Promise<ArrivalRules> {
  const last = readAt.get(pool);
  if (last && performance.now() - last.at < READ_EVERY_MS) return last.rules;
  const client = await pool.connect();
  try {
    const rules = await lockedArrivalRules(client);
    readAt.set(pool, { at: performance.now(), rules });
    return rules;
  } finally {
    client.release();
  }
}
