import "server-only";
import type pg from "pg";
import { HAS_ORIGIN, ITEM_SNAPSHOT_SQL } from "../vocabulary/replay-item";

// Where a rule's approvals go when its version carries a standing replay: into that version's one open batch
// (opened at the version's approval: lib/replay/batch/standing-batch.ts), in the transaction that decides them —
// at arrival in the store, or in an apply job's page. Raw SQL on the replay tables, here at the rule's step of the
// data path because the deciding transaction is the store's. Nothing lives in memory: whether a batch is open is
// read from the rule (OPEN_STANDING), so every server's store and every worker's completion agree.
//
// Lock order (lib/replay/engine/claim-items.ts): the rule row (FOR SHARE, by the deciding transaction) → the
// decided dead_letter rows → the batch row (its total and the items' seq) → the audit chain's head.

/** SQL (b: replay_batch): a standing batch whose rule version still decides, so more records may come; never complete. */
export const OPEN_STANDING = `EXISTS (SELECT 1 FROM rule sr WHERE sr.id = b.rule_id AND sr.status = 'active' AND sr.active_version = b.rule_version)`;

/**
 * Appends the records just approved by rules with a standing replay to their open batch: those approved, keyed
 * and suiting the sink (the batch's selection says whether it needs an origin or takes spatial features only), in
 * observation order after the batch's items. A record left out stays approved, free for a batch of its own, and is
 * counted on the batch as not replayable. A
 * paused batch takes them (they wait for its resume); an ended one none. Returns how many went in.
 */
export async function appendToStanding(client: pg.PoolClient, byRule: Map<string, string[]>, now: Date): Promise<number> {
  let queued = 0;
  for (const [ruleId, ids] of byRule) {
    if (ids.length === 0) continue;
    // The batch row is locked by the UPDATE until the deciding transaction commits: appends to one rule's flow
    // queue behind each other there (the lanes' rate reservations on that row wait as long).
    // An approved record that does not suit the sink (no broker source to go back to, no key, not spatial) is
    // counted on the batch (selection.notReplayable) so the rule's outcomes show it rather than losing it silently.
    const { rowCount } = await client.query(
      `WITH b0 AS (
         SELECT b.id, coalesce((b.selection->>'needsOrigin')::boolean, false) AS needs_origin,
           coalesce((b.selection->>'spatialOnly')::boolean, false) AS spatial_only
         FROM replay_batch b WHERE b.rule_id = $1 AND b.status IN ('approved', 'running', 'paused') AND ${OPEN_STANDING}
       ), c AS (
         SELECT b0.id AS batch_id, d.id, d.idempotency_key IS NOT NULL AND (NOT b0.needs_origin OR ${HAS_ORIGIN})
           AND (NOT b0.spatial_only OR d.kind = 'spatial') AS fits
         FROM b0, dead_letter d WHERE d.id = ANY($2::bigint[]) AND d.status = 'approved'
       ), e AS (
         SELECT c.batch_id, d.id, d.kind, d.idempotency_key, d.entity_key, d.observed_at, ${ITEM_SNAPSHOT_SQL} AS snapshot,
           row_number() OVER (ORDER BY d.observed_at, d.id)::int AS n
         FROM c JOIN dead_letter d ON d.id = c.id WHERE c.fits
       ), b AS (
         UPDATE replay_batch SET total = total + (SELECT count(*) FROM e)::int, updated_at = $3,
           selection = CASE WHEN EXISTS (SELECT 1 FROM c WHERE NOT c.fits)
             THEN jsonb_set(selection, '{notReplayable}', to_jsonb(coalesce((selection->>'notReplayable')::int, 0)
               + (SELECT count(*) FROM c WHERE NOT c.fits)::int))
             ELSE selection END
         WHERE id = (SELECT id FROM b0) AND EXISTS (SELECT 1 FROM c)
         RETURNING id, total - (SELECT count(*) FROM e)::int AS base
       )
       INSERT INTO replay_item (batch_id, dead_letter_id, seq, kind, idempotency_key, entity_key, observed_at, snapshot, run_at)
       SELECT b.id, e.id, b.base + e.n, e.kind, e.idempotency_key, e.entity_key, e.observed_at, e.snapshot, $3 FROM e JOIN b ON b.id = e.batch_id`,
      [ruleId, ids, now],
    );
    queued += rowCount ?? 0;
  }
  return queued;
}
