import "server-only";
import type pg from "pg";
import type { DeadLetterKind } from "../../vocabulary/record";

// The ledger: every key a replay settled, once. Written in the transaction that records the items' outcomes
// (by the built-in sink as its dedup gate, and after a remote sink's acknowledgement, so a later batch dedupes
// the key without sending it again); read by the claim (a settled key is not sent) and by lookup.

/** What the ledger keeps of a settled item (a sink's Submission is one). */
export interface SettledItem {
  idempotencyKey: string;
  kind: DeadLetterKind;
  entityKey: string | null;
  observedAt: string;
  batchId: string;
  itemId: string;
  deadLetterId: string;
}

/**
 * Who settled a key: "replay" (the built-in sink), a remote sink's type (RemoteSink.ledgerOrigin, typed by the sink
 * registry; the sinks import the ledger, so it takes their type as given), or "import" (`redrive ledger import`,
 * import-ledger.ts, which writes its rows itself).
 */
export type LedgerOrigin = string;

/**
 * Inserts the submissions' keys; returns the item ids whose key was new (a key already there is left as it was).
 * Keys go in sorted: two transactions inserting overlapping keys then wait on each other in one order.
 */
export async function recordSettled(client: pg.PoolClient, subs: SettledItem[], now: Date, origin: LedgerOrigin): Promise<Set<string>> {
  if (subs.length === 0) return new Set();
  const byKey = [...subs].sort((a, b) => (a.idempotencyKey < b.idempotencyKey ? -1 : a.idempotencyKey > b.idempotencyKey ? 1 : 0));
  const { rows } = await client.query<{ item_id: string }>(
    `INSERT INTO ledger_entry (idempotency_key, kind, entity_key, observed_at, applied_at, batch_id, item_id, dead_letter_id, origin)
     SELECT key, kind, entity, observed, $8, batch, item, dl, $9
     FROM unnest($1::text[], $2::"DeadLetterKind"[], $3::text[], $4::timestamptz[], $5::bigint[], $6::bigint[], $7::bigint[])
       WITH ORDINALITY AS t(key, kind, entity, observed, batch, item, dl, ord)
     ORDER BY ord
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING item_id::text AS item_id`,
    [
      byKey.map((s) => s.idempotencyKey),
      byKey.map((s) => s.kind),
      byKey.map((s) => s.entityKey),
      byKey.map((s) => s.observedAt),
      byKey.map((s) => s.batchId),
      byKey.map((s) => s.itemId),
      byKey.map((s) => s.deadLetterId),
      now,
      origin,
    ],
  );
  return new Set(rows.map((r) => r.item_id));
}
