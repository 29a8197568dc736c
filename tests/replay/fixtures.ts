import type pg from "pg";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import type { Db } from "../../lib/db/client";
import { envelopeAnswer } from "../../lib/dead-letters/ingest/arrival-outcome";
import { ingest as ingestArrival } from "../../lib/dead-letters/ingest/ingest";
import { applyBatchAction, type ActingUser } from "../../lib/replay/batch/apply-batch-action";
import { createBatch } from "../../lib/replay/batch/create-batch";
import { CreateBatchBody } from "../../lib/replay/batch/batch-schemas";

// Records and batches for the replay tests, the chaos run and the benchmark. Small scenarios go through the
// real ingest pipeline; bulk ones are generated in SQL (100,000 records through the pipeline would measure
// ingest, not replay) with payloads that pass re-validation.

export const EPOCH = Date.UTC(2026, 10, 1) / 1000;

export function spatialEnvelope(o: {
  key: string;
  observedAt: number;
  featureId: string;
  geometry?: unknown;
  replayCount?: number;
}): string {
  const geometry = o.geometry ?? {
    type: "Polygon",
    coordinates: [
      [
        [10, 50],
        [10.01, 50],
        [10.01, 50.01],
        [10, 50.01],
        [10, 50],
      ],
    ],
  };
  return JSON.stringify({
    kind: "spatial",
    source: "test",
    idempotency_key: o.key,
    observed_at: EPOCH + o.observedAt,
    replay_count: o.replayCount ?? 0,
    feature: { type: "Feature", id: o.featureId, properties: { name: o.featureId }, geometry },
    dead_letter_reason: "HTTP 503 from downstream",
  });
}

export function afcRecord(o: { eventId: string; deviceId: string; at: number; fare?: unknown }): string {
  const tap = {
    event_id: o.eventId,
    device_id: o.deviceId,
    fare_amount_cents: o.fare ?? 250,
    tap_timestamp: new Date((EPOCH + o.at) * 1000).toISOString(),
  };
  return JSON.stringify({ kind: "afc", source: "test", raw_payload: tap, failure_reason: "downstream timeout", retry_count: 0 });
}

/** Ingests envelopes through the real pipeline; returns their ids in input order. */
export async function ingest(db: Db, texts: string[]): Promise<string[]> {
  async function* records() {
    for (const [index, text] of texts.entries()) yield { index, text };
  }
  const ids: string[] = [];
  const ctx = { pool: db.pool, actor: SYSTEM_ACTOR, requestId: "test", batchSize: 500, threads: null };
  for await (const results of await ingestArrival({ via: "records", records: records() }, ctx)) {
    for (const r of results.map(envelopeAnswer)) {
      if (r.status === "rejected") throw new Error(`fixture rejected: ${JSON.stringify(r.errors)}`);
      if (r.id === undefined) throw new Error("fixture key stored by another sender");
      ids.push(r.id);
    }
  }
  return ids;
}

/** What triage does when an analyst approves (the triage module owns the real action). */
export async function approve(db: Db, ids: string[]): Promise<void> {
  await db.pool.query(`UPDATE dead_letter SET status = 'approved' WHERE id = ANY($1::bigint[])`, [ids]);
}

/**
 * `count` approved records generated in SQL: AFC taps (entity = device, `devices` of them) or spatial squares
 * (entity = feature id, unique). Keys are `${prefix}-${n}`; observations one second apart, in random order.
 */
export async function bulkApproved(
  pool: pg.Pool,
  o: { count: number; prefix: string; kind: "afc" | "spatial"; devices?: number; source?: string },
): Promise<void> {
  const step = 50_000;
  for (let from = 1; from <= o.count; from += step) {
    const to = Math.min(o.count, from + step - 1);
    const entity = o.kind === "afc" ? `'dev-' || (g % ${Math.max(1, o.devices ?? 1000)})` : `'feature-' || g`;
    const payload =
      o.kind === "afc"
        ? `jsonb_build_object('event_id', 'e-' || g, 'device_id', ${entity}, 'fare_amount_cents', 250,
           'tap_timestamp', to_char(obs AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))`
        : `jsonb_build_object('type', 'Feature', 'id', ${entity}, 'properties', '{}'::jsonb, 'geometry', jsonb_build_object('type', 'Polygon',
           'coordinates', jsonb_build_array(jsonb_build_array(jsonb_build_array(x, y), jsonb_build_array(x + 0.01, y),
             jsonb_build_array(x + 0.01, y + 0.01), jsonb_build_array(x, y + 0.01), jsonb_build_array(x, y)))))`;
    await pool.query(
      `INSERT INTO dead_letter (kind, source, idempotency_key, entity_key, device_id, observed_at, first_seen_at, raw_envelope, payload,
         first_failure_reason, reason, reason_group, failure_class, status)
       SELECT $1::"DeadLetterKind", $5, $2 || '-' || g, ${entity}, CASE WHEN $1 = 'afc' THEN ${entity} END, obs, now(), '{}',
         ${payload}, 'downstream timeout', 'downstream timeout', 'downstream timeout', 'transient', 'approved'
       FROM generate_series($3::int, $4::int) AS g,
         LATERAL (SELECT to_timestamp(${EPOCH} + (hashint4(g) & 16777215)) AS obs, (g % 300) * 0.1 AS x, ((g / 300) % 150) * 0.1 AS y) v`,
      [o.kind, o.prefix, from, to, o.source ?? "bulk"],
    );
  }
}

export interface TestUsers {
  creator: ActingUser;
  approver: ActingUser;
}

/** Creates a batch as `creator`, approves it as `approver` and starts it; returns its id. */
export async function runningBatch(db: Db, users: TestUsers, body: unknown): Promise<string> {
  const input = CreateBatchBody.parse(body);
  const now = new Date();
  const { id } = await createBatch(db.pool, input, users.creator, { now });
  await applyBatchAction(db.pool, id, "approve", users.approver, { now });
  await applyBatchAction(db.pool, id, "start", users.creator, { now });
  return id;
}

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function batchStatus(db: Db | { pool: pg.Pool }, id: string): Promise<string> {
  const { rows } = await db.pool.query<{ status: string }>(`SELECT status::text AS status FROM replay_batch WHERE id = $1`, [id]);
  return rows[0]?.status ?? "missing";
}

export async function itemCounts(pool: pg.Pool, batchId: string): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ status: string; n: number }>(
    `SELECT status::text AS status, count(*)::int AS n FROM replay_item WHERE batch_id = $1 GROUP BY status`,
    [batchId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}
