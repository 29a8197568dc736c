import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { claimItems } from "../../lib/replay/engine/claim-items";
import { applyBatchAction } from "../../lib/replay/batch/apply-batch-action";
import { pacingFor } from "../../lib/replay/pacing/gcra";
import { importLedger } from "../../lib/replay/ledger/import-ledger";
import { reserveSlots, slowDown } from "../../lib/replay/pacing/reserve-slots";
import { claimableSeqs, type QueueItem } from "../../lib/replay/engine/replay-order";
import type { ItemStatus } from "../../lib/replay/batch/batch-schemas";
import { getBatch } from "../../lib/replay/batch/read-batches";
import { startWorker, type WorkerHandle } from "../../lib/replay/engine/worker";
import { approve, batchStatus, ingest, runningBatch, spatialEnvelope, type TestUsers, waitFor } from "../replay/fixtures";
import { startSinkServer } from "../replay/sink-server";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

setTestAuthEnv();

let db: Db;
let users: TestUsers;
const workers: WorkerHandle[] = [];
const FAST = { leaseMs: 3000, pollMs: 50, backoff: { baseMs: 20, maxMs: 200 } };

beforeAll(async () => {
  db = await testDb();
  const [a, b] = [await makeUser(db, "supervisor"), await makeUser(db, "supervisor")];
  users = {
    creator: { scope: UNSCOPED, userId: a.id, email: a.email, role: a.role },
    approver: { scope: UNSCOPED, userId: b.id, email: b.email, role: b.role },
  };
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

function worker(): WorkerHandle {
  const w = startWorker({ db, log: () => {}, ...FAST });
  workers.push(w);
  return w;
}

async function counts(batchId: string) {
  const { rows } = await db.pool.query(
    `SELECT applied_count AS applied, deduped_count AS deduped, dropped_count AS dropped, poison_count AS poison,
       failed_count AS failed, cancelled_count AS cancelled FROM replay_batch WHERE id = $1`,
    [batchId],
  );
  return rows[0];
}

const seedScenario = (p: string) => [
  spatialEnvelope({ key: `${p}-100`, observedAt: 100, featureId: `${p}-a` }),
  spatialEnvelope({ key: `${p}-250`, observedAt: 250, featureId: `${p}-b` }),
  spatialEnvelope({ key: `${p}-150`, observedAt: 150, featureId: `${p}-c` }),
];

async function* lines(...l: string[]) {
  yield* l;
}

describe("the seed scenario: observed 100, 250, 150; the first key already applied", () => {
  it("through the HTTP sink: submits 150 then 250, applied 2, deduped 1", async () => {
    const server = await startSinkServer();
    try {
      const ids = await ingest(db, seedScenario("http"));
      await approve(db, ids);
      const imported = await importLedger(db.pool, lines(JSON.stringify({ idempotency_key: "http-100" })), {
        actor: { id: null, email: "test", role: "system" },
        now: new Date(),
        source: "test",
      });
      expect(imported).toMatchObject({ imported: 1, alreadyKnown: 0, invalid: [] });
      const id = await runningBatch(db, users, { ids, sink: { type: "http", url: server.url }, ratePerSecond: 50 });
      worker();
      await waitFor("completion", async () => (await batchStatus(db, id)) === "completed");
      expect(server.deliveries.map((d) => d.key)).toEqual(["http-150", "http-250"]);
      expect(await counts(id)).toEqual({ applied: 2, deduped: 1, dropped: 0, poison: 0, failed: 0, cancelled: 0 });
      const { rows } = await db.pool.query(
        `SELECT status::text, count(*)::int AS n FROM dead_letter WHERE id = ANY($1::bigint[]) GROUP BY 1`,
        [ids],
      );
      expect(rows).toEqual([{ status: "replayed", n: 3 }]);
    } finally {
      await server.close();
    }
  });

  it("through the built-in ledger: the same order and counts, each key in the ledger once", async () => {
    const ids = await ingest(db, seedScenario("led"));
    await approve(db, ids);
    await db.pool.query(`INSERT INTO ledger_entry (idempotency_key, kind, origin) VALUES ('led-100', 'spatial', 'import')`);
    const id = await runningBatch(db, users, { ids, sink: { type: "ledger" }, ratePerSecond: 20 });
    worker();
    await waitFor("completion", async () => (await batchStatus(db, id)) === "completed");
    expect(await counts(id)).toEqual({ applied: 2, deduped: 1, dropped: 0, poison: 0, failed: 0, cancelled: 0 });
    const submitted = await db.pool.query(
      `SELECT idempotency_key FROM replay_item WHERE batch_id = $1 AND submitted_at IS NOT NULL ORDER BY submitted_at, seq`,
      [id],
    );
    expect(submitted.rows.map((r) => r.idempotency_key)).toEqual(["led-150", "led-250"]);
    const ledger = await db.pool.query(
      `SELECT idempotency_key, origin, batch_id::text FROM ledger_entry WHERE idempotency_key LIKE 'led-%' ORDER BY applied_at, idempotency_key`,
    );
    expect(ledger.rows).toEqual([
      { idempotency_key: "led-100", origin: "import", batch_id: null },
      { idempotency_key: "led-150", origin: "replay", batch_id: id },
      { idempotency_key: "led-250", origin: "replay", batch_id: id },
    ]);
    // Every outcome is in the audit trail, against the record.
    const audit = await db.pool.query(
      `SELECT action, count(*)::int AS n FROM audit_event WHERE target_type = 'dead_letter' AND target_id = ANY($1) AND action LIKE 'replay.%'
       GROUP BY 1 ORDER BY 1`,
      [ids],
    );
    expect(audit.rows).toEqual([
      { action: "replay.applied", n: 2 },
      { action: "replay.deduped", n: 1 },
    ]);
  });
});

describe("unpaced", () => {
  it("drains at the maximum rate (1,000,000/s): slots granted in the past are used at once, not given up", async () => {
    const ids = await ingest(
      db,
      Array.from({ length: 60 }, (_, i) => spatialEnvelope({ key: `fast-${i}`, observedAt: 500 + i, featureId: `fast-${i % 7}` })),
    );
    await approve(db, ids);
    const id = await runningBatch(db, users, { ids, sink: { type: "ledger" }, ratePerSecond: 1_000_000, pageSize: 25 });
    worker();
    await waitFor("completion", async () => (await batchStatus(db, id)) === "completed", 15_000);
    expect(await counts(id)).toMatchObject({ applied: 60 });
    // Once it has ended, the last-10-s rate is gone and the batch says how fast the whole run went: n - 1 intervals
    // over its first to last submission (not its start: it may have waited for a worker).
    const view = await getBatch(db.pool, UNSCOPED, id, new Date());
    expect(view.achievedRate).toBeNull();
    const { rows } = await db.pool.query(
      `SELECT extract(epoch FROM max(submitted_at) - min(submitted_at))::float8 AS s,
         extract(epoch FROM (SELECT finished_at FROM replay_batch WHERE id = $1) - min(submitted_at))::float8 AS run
       FROM replay_item WHERE batch_id = $1`,
      [id],
    );
    expect(view.averageRate).toBeCloseTo(rows[0].s > 0 ? 59 / rows[0].s : 60 / rows[0].run, 6);
  });
});

describe("achieved rate", () => {
  it("counts only submissions since the resume over the seconds since it, not those from before the pause", async () => {
    const ids = await ingest(
      db,
      Array.from({ length: 12 }, (_, i) => spatialEnvelope({ key: `rate-${i}`, observedAt: 900 + i, featureId: `rate-${i}` })),
    );
    await approve(db, ids);
    const id = await runningBatch(db, users, { ids, sink: { type: "ledger" }, ratePerSecond: 1 });
    // No worker: the history is written by hand. 8 submissions 6–9 s ago (before a pause), a resume 2 s ago, then 2.
    const now = new Date();
    const ago = (s: number) => new Date(now.getTime() - s * 1000);
    const items = (await db.pool.query<{ id: string }>(`SELECT id::text AS id FROM replay_item WHERE batch_id = $1 ORDER BY seq`, [id]))
      .rows;
    for (const [n, item] of items.slice(0, 10).entries()) {
      await db.pool.query(`UPDATE replay_item SET submitted_at = $2 WHERE id = $1`, [
        item.id,
        n < 8 ? ago(9 - n * 0.4) : ago(1.5 - (n - 8) * 0.5),
      ]);
    }
    await db.pool.query(`UPDATE replay_batch SET window_from = $2 WHERE id = $1`, [id, ago(2)]);
    const view = await getBatch(db.pool, UNSCOPED, id, now);
    expect(view.achievedRate).toBeCloseTo(2 / 2, 6);
    // Paused, the same recent submissions are not a rate the batch has now.
    await applyBatchAction(db.pool, id, "pause", users.creator, { now });
    expect((await getBatch(db.pool, UNSCOPED, id, now)).achievedRate).toBeNull();
    await applyBatchAction(db.pool, id, "cancel", users.creator, { now: new Date() }); // nothing for the next tests' workers
  });
});

describe("entity state: last write wins by observation time", () => {
  /** One record replayed by a batch of its own, through the ledger, to completion; the batch's id. */
  async function replayedAlone(id: string): Promise<string> {
    const batch = await runningBatch(db, users, { ids: [id], sink: { type: "ledger" }, ratePerSecond: 100 });
    await waitFor(`batch ${batch}`, async () => (await batchStatus(db, batch)) === "completed");
    return batch;
  }

  it("never rolls an entity back when an older observation is replayed later, in another batch", async () => {
    const [newer] = await ingest(db, [spatialEnvelope({ key: "lww-300", observedAt: 300, featureId: "lww-feature" })]);
    const [older] = await ingest(db, [spatialEnvelope({ key: "lww-200", observedAt: 200, featureId: "lww-feature" })]);
    await approve(db, [newer as string, older as string]);
    worker();
    await replayedAlone(newer as string);
    const second = await replayedAlone(older as string);
    const state = await db.pool.query(
      `SELECT idempotency_key, observed_at FROM entity_state WHERE kind = 'spatial' AND entity_key = 'lww-feature'`,
    );
    expect(state.rows).toEqual([{ idempotency_key: "lww-300", observed_at: new Date((Date.UTC(2026, 10, 1) / 1000 + 300) * 1000) }]);
    expect(await counts(second)).toMatchObject({ applied: 1 }); // the key is applied; the state keeps the newer observation
  });

  it("tells observations 0.3 ms apart (one millisecond, rounded): the newer one, replayed after the older, takes the entity", async () => {
    const envelope = (key: string, observed: string) =>
      JSON.stringify({
        kind: "spatial",
        source: "test",
        idempotency_key: key,
        observed_at: observed,
        feature: {
          type: "Feature",
          id: "lww-micro",
          properties: {},
          geometry: {
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
          },
        },
      });
    const [older] = await ingest(db, [envelope("lww-micro-1", "2026-11-01T00:00:00.123100Z")]);
    const [newer] = await ingest(db, [envelope("lww-micro-2", "2026-11-01T00:00:00.123400Z")]);
    await approve(db, [older as string, newer as string]);
    worker();
    await replayedAlone(older as string);
    await replayedAlone(newer as string);
    const state = await db.pool.query(
      `SELECT idempotency_key, to_char(observed_at AT TIME ZONE 'UTC', 'SS.US') AS t FROM entity_state WHERE kind = 'spatial' AND entity_key = 'lww-micro'`,
    );
    expect(state.rows).toEqual([{ idempotency_key: "lww-micro-2", t: "00.123400" }]);
    const ledger = await db.pool.query(
      `SELECT idempotency_key, to_char(observed_at AT TIME ZONE 'UTC', 'SS.US') AS t FROM ledger_entry WHERE idempotency_key LIKE 'lww-micro-%' ORDER BY 1`,
    );
    expect(ledger.rows).toEqual([
      { idempotency_key: "lww-micro-1", t: "00.123100" },
      { idempotency_key: "lww-micro-2", t: "00.123400" },
    ]);
  });
});

describe("the claim statement", () => {
  it("takes exactly what the ordering rules allow", async () => {
    const envs = ["e1", "e1", "e2", "e1", "e3", "e3", "e4"].map((entity, i) =>
      spatialEnvelope({ key: `claim-${i}`, observedAt: 1000 + i, featureId: entity }),
    );
    const ids = await ingest(db, envs);
    await approve(db, ids);
    const id = await runningBatch(db, users, { ids, sink: { type: "ledger" }, ratePerSecond: 10 });
    // A state in the middle of a run: e2's only item running, e3's first item waiting to retry.
    const statuses: Record<number, ItemStatus> = { 3: "running", 5: "retry" };
    for (const [seq, status] of Object.entries(statuses)) {
      await db.pool.query(`UPDATE replay_item SET status = $3, run_at = now() + interval '1 hour' WHERE batch_id = $1 AND seq = $2`, [
        id,
        seq,
        status,
      ]);
    }
    const { rows } = await db.pool.query<{ seq: number; entity_key: string; status: ItemStatus; run_at: Date }>(
      `SELECT seq, entity_key, status::text AS status, run_at FROM replay_item WHERE batch_id = $1`,
      [id],
    );
    const now = Date.now();
    const expected = claimableSeqs(
      rows.map((r): QueueItem => ({ seq: r.seq, entityKey: r.entity_key, status: r.status, runAt: r.run_at.getTime() })),
      now,
      10,
    );
    const claimed = await claimItems(db.pool, { batchId: id, workerId: "test-claimer", limit: 10, leaseMs: 1000 });
    expect(claimed.map((c) => c.seq)).toEqual(expected);
    expect(expected).toEqual([1, 7]); // e1's first item, and e4; e2 running, e3 waiting, later e1/e3 items blocked
    await db.pool.query(`UPDATE replay_batch SET status = 'cancelled' WHERE id = $1`, [id]);
  });
});

describe("the pacing statement", () => {
  it("grants what lib/replay/pacing/gcra.ts grants, shared through replay_batch.tat, and halves the rate on a slow-down", async () => {
    const [record] = await ingest(db, [spatialEnvelope({ key: "gcra-1", observedAt: 1, featureId: "gcra" })]);
    await approve(db, [record as string]);
    const id = await runningBatch(db, users, { ids: [record], sink: { type: "ledger" }, ratePerSecond: 10 });
    const p = { ...pacingFor(10), minGrant: 1 };
    const first = await reserveSlots(db.pool, id, 10, p);
    expect(first).toMatchObject({ granted: 3, intervalMs: 100, stopped: false }); // slots at +0, +100, +200 ms: 250 ms ahead
    expect(Math.abs(first.startInMs)).toBeLessThan(20);
    const second = await reserveSlots(db.pool, id, 10, p);
    expect(second.granted).toBe(0); // the next slot (+300 ms) is beyond the horizon
    expect(second.retryInMs).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, second.retryInMs + 5));
    expect((await reserveSlots(db.pool, id, 10, p)).granted).toBeGreaterThanOrEqual(1);
    await slowDown(db.pool, id, 500);
    const throttled = await reserveSlots(db.pool, id, 10, p);
    expect(throttled.granted).toBe(0); // Retry-After pushed the schedule 500 ms out
    await new Promise((r) => setTimeout(r, 600));
    const after = await reserveSlots(db.pool, id, 10, p);
    // 10/s × 0.5, recovering by 0.1 per second since the signal: 100 ms → ~200 ms, back towards 100 ms
    expect(after.intervalMs).toBeGreaterThan(140);
    expect(after.intervalMs).toBeLessThanOrEqual(200);
    await db.pool.query(`UPDATE replay_batch SET status = 'cancelled' WHERE id = $1`, [id]);
  });
});
