// The replay benchmark's floor: what the writes #7 asks of every item cost PostgreSQL alone, with no
// application code — per page of 500, ONE statement locks the page (FOR UPDATE SKIP LOCKED), inserts the
// ledger keys (the dedup gate), upserts the entity state (last write wins by observation), records the items'
// outcomes and marks their records replayed. No re-validation, no re-check of the records, no audit, no round
// trips beyond one per page: a bound the engine cannot beat on this machine. The variants leave one write out
// each (the items' outcome stays: it is what ends the drain), so the difference in time per item is what that
// write costs.
import type pg from "pg";

/** A write the floor can leave out. */
export type FloorWrite = "ledger" | "entity" | "record";

/** The floor itself, then one variant per write left out. */
export const FLOOR_VARIANTS: (FloorWrite | null)[] = [null, "record", "entity", "ledger"];

export interface FloorResult {
  /** the write left out, null for the floor itself */
  without: FloorWrite | null;
  lanes: number;
  seconds: number;
  perSecond: number;
}

function pageStatement(without: FloorWrite | null): string {
  return `WITH page AS (
       SELECT i.id, i.dead_letter_id, i.kind, i.idempotency_key, i.entity_key, i.observed_at, d.payload
       FROM replay_item i JOIN dead_letter d ON d.id = i.dead_letter_id
       WHERE i.id = ANY (ARRAY(SELECT id FROM replay_item WHERE batch_id = $1 AND status = 'pending' ORDER BY seq LIMIT 500
                               FOR UPDATE SKIP LOCKED))),
     ${
       without === "ledger"
         ? ""
         : `gate AS (
       INSERT INTO ledger_entry (idempotency_key, kind, entity_key, observed_at, applied_at, batch_id, item_id, dead_letter_id, origin)
       SELECT idempotency_key, kind, entity_key, observed_at, now(), $1, id, dead_letter_id, 'replay' FROM page ORDER BY idempotency_key
       ON CONFLICT (idempotency_key) DO NOTHING),`
     }
     ${
       without === "entity"
         ? ""
         : `entity AS (
       INSERT INTO entity_state (kind, entity_key, observed_at, idempotency_key, payload, updated_at)
       SELECT DISTINCT ON (kind, entity_key) kind, entity_key, observed_at, idempotency_key, payload, now()
       FROM page WHERE entity_key IS NOT NULL ORDER BY kind, entity_key, observed_at DESC
       ON CONFLICT (kind, entity_key) DO UPDATE SET observed_at = EXCLUDED.observed_at, idempotency_key = EXCLUDED.idempotency_key,
         payload = EXCLUDED.payload, updated_at = EXCLUDED.updated_at
       WHERE entity_state.observed_at < EXCLUDED.observed_at),`
     }
     item AS (
       UPDATE replay_item i SET status = 'applied', submitted_at = now(), finished_at = now() FROM page WHERE i.id = page.id)
     ${
       without !== "record"
         ? `, record AS (
       UPDATE dead_letter d SET status = 'replayed', replay_count = d.replay_count + 1, version = d.version + 1, updated_at = now()
       FROM page WHERE d.id = page.dead_letter_id)`
         : ""
     }
     SELECT count(*)::int AS n FROM page`;
}

/**
 * Drains the items of `batchId` (approved, not started: no worker touches them) with `lanes` connections, each
 * running the page statement until it finds nothing. Returns items per second.
 */
export async function benchWriteFloor(
  pool: pg.Pool,
  batchId: string,
  total: number,
  lanes: number,
  without: FloorWrite | null,
): Promise<FloorResult> {
  const sql = pageStatement(without);
  const lane = async (): Promise<number> => {
    const client = await pool.connect();
    let n = 0;
    try {
      for (;;) {
        const { rows } = await client.query<{ n: number }>(sql, [batchId]);
        const got = rows[0]?.n ?? 0;
        if (got === 0) return n;
        n += got;
      }
    } finally {
      client.release();
    }
  };
  const started = performance.now();
  const done = (await Promise.all(Array.from({ length: lanes }, lane))).reduce((a, b) => a + b, 0);
  const seconds = (performance.now() - started) / 1000;
  if (done !== total) throw new Error(`write floor: expected ${total} items, drained ${done}`);
  return { without, lanes, seconds: Number(seconds.toFixed(2)), perSecond: Math.round(total / seconds) };
}
