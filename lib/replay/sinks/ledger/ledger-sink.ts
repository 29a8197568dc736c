import "server-only";
import type pg from "pg";
import { recordSettled } from "../../ledger/record-settled";
import type { Submission, TransactionalSink } from "../sink";

// The built-in sink: PostgreSQL itself. The dedup gate is the ledger's primary key, inserted in the SAME
// transaction that records the items' outcomes, so a key is applied exactly once whatever crashes and
// whichever worker retries: a second insert of the key finds the first and becomes "deduped". Applying
// also updates the entity state, last write wins by observation time, so a stale replay (this batch or
// another) never rolls an entity back.

export function ledgerSink(): TransactionalSink {
  return { mode: "in-transaction", settle };
}

async function settle(client: pg.PoolClient, subs: Submission[], now: Date): Promise<Map<string, "applied" | "deduped">> {
  const out = new Map<string, "applied" | "deduped">();
  if (subs.length === 0) return out;
  const applied = await recordSettled(client, subs, now, "replay");
  for (const s of subs) out.set(s.itemId, applied.has(s.itemId) ? "applied" : "deduped");

  // Newest observation per entity within the group (ON CONFLICT DO UPDATE may touch a row once per statement).
  const newest = new Map<string, Submission>();
  for (const s of subs) {
    if (s.entityKey === null || !applied.has(s.itemId)) continue;
    const k = `${s.kind}\u0000${s.entityKey}`;
    const seen = newest.get(k);
    if (!seen || seen.observedAt < s.observedAt) newest.set(k, s);
  }
  const states = [...newest.values()].sort((a, b) =>
    a.kind !== b.kind ? (a.kind < b.kind ? -1 : 1) : (a.entityKey as string) < (b.entityKey as string) ? -1 : 1,
  );
  if (states.length > 0) {
    await client.query(
      // Payloads as one JSON array (parsed once) rather than a jsonb[] parameter: node-postgres escapes every
      // element of an array in JavaScript and PostgreSQL parses the array literal before each element's JSON.
      `INSERT INTO entity_state (kind, entity_key, observed_at, idempotency_key, payload, updated_at)
       SELECT t.kind, t.entity, t.observed, t.key, p.payload, $6
       FROM unnest($1::"DeadLetterKind"[], $2::text[], $3::timestamptz[], $4::text[]) WITH ORDINALITY AS t(kind, entity, observed, key, ord)
         JOIN jsonb_array_elements($5::jsonb) WITH ORDINALITY AS p(payload, ord) ON p.ord = t.ord
       ORDER BY t.ord
       ON CONFLICT (kind, entity_key) DO UPDATE SET observed_at = EXCLUDED.observed_at,
         idempotency_key = EXCLUDED.idempotency_key, payload = EXCLUDED.payload, updated_at = EXCLUDED.updated_at
       WHERE entity_state.observed_at < EXCLUDED.observed_at`,
      [
        states.map((s) => s.kind),
        states.map((s) => s.entityKey),
        states.map((s) => s.observedAt),
        states.map((s) => s.idempotencyKey),
        JSON.stringify(states.map((s) => s.payload ?? null)),
        now,
      ],
    );
  }
  return out;
}
