import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { inTransaction } from "../../lib/db/transaction";
import { applyAction } from "../../lib/dead-letters/triage/apply-action";
import { getDeadLetter } from "../../lib/dead-letters/query/detail";
import { releaseQuarantined } from "../../lib/dead-letters/triage/release-purge";
import { claimItems, registerWorker, sweepExpired } from "../../lib/replay/engine/claim-items";
import { writeOutcomes } from "../../lib/replay/engine/write-outcomes";
import { decideOrSubmit } from "../../lib/replay/engine/process-page";
import { makeSink } from "../../lib/replay/sinks/registry.server";
import { MAX_LEASE_LOSSES } from "../../lib/replay/engine/failure-rules";
import { getBatch } from "../../lib/replay/batch/read-batches";
import { startWorker, type WorkerHandle } from "../../lib/replay/engine/worker";
import {
  afcRecord,
  approve,
  batchStatus,
  ingest,
  itemCounts,
  runningBatch,
  spatialEnvelope,
  type TestUsers,
  waitFor,
} from "../replay/fixtures";
import { startSinkServer, type SinkServer } from "../replay/sink-server";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// What happens when the sink or the record is the problem: retries with backoff, poison after the budget
// with the reason in the record's history and the record quarantined, refusals, re-validation drops, the
// poison check, the self-pause, the slow-down on 429, and items lost with a dead worker.

setTestAuthEnv();

let db: Db;
let users: TestUsers;
let server: SinkServer | null = null;
const workers: WorkerHandle[] = [];

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
  await server?.close();
  server = null;
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

function worker(leaseMs = 3000): void {
  workers.push(startWorker({ db, log: () => {}, leaseMs, pollMs: 50, backoff: { baseMs: 20, maxMs: 100 } }));
}

async function taps(prefix: string, n: number, fare: unknown = 250): Promise<string[]> {
  const ids = await ingest(
    db,
    Array.from({ length: n }, (_, i) => afcRecord({ eventId: `${prefix}-${i}`, deviceId: `${prefix}-d${i}`, at: i, fare })),
  );
  await approve(db, ids);
  return ids;
}

const settle = (id: string) =>
  waitFor(`batch ${id} to finish`, async () => ["completed", "paused", "failed"].includes(await batchStatus(db, id)), 20_000);

describe("a sink that keeps failing", () => {
  it("retries with backoff, then poisons the item and quarantines the record with the reason in its history", async () => {
    server = await startSinkServer({ decide: () => ({ status: 500 }) });
    const [record] = await taps("poison", 1);
    const id = await runningBatch(db, users, {
      ids: [record],
      sink: { type: "http", url: server.url },
      ratePerSecond: 100,
      maxAttempts: 3,
    });
    worker();
    await settle(id);
    expect(server.deliveries).toHaveLength(3);
    const item = await db.pool.query(`SELECT status::text, attempts, last_error FROM replay_item WHERE batch_id = $1`, [id]);
    expect(item.rows[0]).toMatchObject({ status: "poison", attempts: 3, last_error: 'gave up after 3 attempts: HTTP 500: {"ok":false}' });
    const rec = await db.pool.query(`SELECT status::text, failure_class::text, replay_count, reason FROM dead_letter WHERE id = $1`, [
      record,
    ]);
    expect(rec.rows[0]).toMatchObject({
      status: "quarantined",
      failure_class: "poison",
      replay_count: 1,
      reason: 'gave up after 3 attempts: HTTP 500: {"ok":false}',
    });
    const history = await db.pool.query(
      `SELECT origin, reason, batch_id::text FROM failure_attempt WHERE dead_letter_id = $1 ORDER BY attempt`,
      [record],
    );
    expect(history.rows.at(-1)).toEqual({ origin: "replay", reason: 'gave up after 3 attempts: HTTP 500: {"ok":false}', batch_id: id });
    const audit = await db.pool.query(
      `SELECT action FROM audit_event WHERE target_type = 'dead_letter' AND target_id = $1 AND action LIKE 'replay.%' ORDER BY id`,
      [record],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(["replay.retry", "replay.retry", "replay.poison"]);
  });

  it("retries a refusal (4xx, failed) with backoff, counted as failed meanwhile; after the budget it is poison, in quarantine", async () => {
    server = await startSinkServer({ decide: () => ({ status: 422 }) });
    const [record] = await taps("refused", 1);
    const id = await runningBatch(db, users, {
      ids: [record],
      sink: { type: "http", url: server.url },
      ratePerSecond: 100,
      maxAttempts: 3,
    });
    // A backoff long enough to read the batch while its item waits for the retry.
    workers.push(startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 50, backoff: { baseMs: 1500, maxMs: 1500 } }));
    await waitFor("the first refusal", async () => (await getBatch(db.pool, UNSCOPED, id, new Date())).counts.failed === 1, 10_000);
    expect((await getBatch(db.pool, UNSCOPED, id, new Date())).counts).toMatchObject({ failed: 1, pending: 0, poison: 0 });
    await settle(id);
    expect(server.deliveries).toHaveLength(3);
    expect(await itemCounts(db.pool, id)).toEqual({ poison: 1 });
    expect((await getBatch(db.pool, UNSCOPED, id, new Date())).counts).toMatchObject({ failed: 0, poison: 1 });
    const rec = await db.pool.query(`SELECT status::text, failure_class::text, replay_count, reason FROM dead_letter WHERE id = $1`, [
      record,
    ]);
    expect(rec.rows[0]).toEqual({
      status: "quarantined",
      failure_class: "poison",
      replay_count: 1,
      reason: 'gave up after 3 attempts: HTTP 422: {"ok":false}',
    });
    // Poison from delivery, not from the record: released by a person, it can be approved and replayed again.
    const actor = { id: null, email: "t@test.local", role: "analyst" };
    expect(
      await releaseQuarantined(
        db.pool,
        { ids: [record!], reason: "the consumer was fixed" },
        { scope: UNSCOPED, actor, requestId: "t", now: new Date() },
      ),
    ).toEqual({ released: 1, skipped: 0 });
    const released = await getDeadLetter(db.pool, record!);
    expect(released).toMatchObject({
      status: "pending",
      failureClass: "transient_schema",
      classReason: 'reopened after the replay gave up after 3 attempts: HTTP 422: {"ok":false}',
    });
    const approved = await applyAction(
      db.pool,
      record!,
      { action: "approve", version: released.version },
      { scope: UNSCOPED, actor, requestId: "t", now: new Date(), canOverrideIdentity: false },
    );
    expect(approved.status).toBe("approved");
  });

  it("pauses the batch itself when the failure share passes the threshold", async () => {
    server = await startSinkServer({ decide: () => ({ status: 500 }) });
    const ids = await taps("selfpause", 60);
    const id = await runningBatch(db, users, {
      ids,
      sink: { type: "http", url: server.url, concurrency: 8 },
      ratePerSecond: 500,
      maxAttempts: 10,
    });
    worker();
    await waitFor("self-pause", async () => (await batchStatus(db, id)) === "paused", 15_000);
    const { rows } = await db.pool.query(`SELECT status_reason FROM replay_batch WHERE id = $1`, [id]);
    expect(rows[0].status_reason).toMatch(/^paused automatically: \d+ of the last \d+ submitted items failed \(100%, threshold 50%\)$/);
    const audit = await db.pool.query(
      `SELECT actor_email, reason FROM audit_event WHERE target_type = 'replay_batch' AND target_id = $1 AND action = 'replay_batch.pause'`,
      [id],
    );
    expect(audit.rows[0].actor_email).toMatch(/^worker:/);
  });

  it("slows the batch down on 429 and waits out Retry-After", async () => {
    server = await startSinkServer({ decide: (_b, n) => (n === 5 ? { status: 429, headers: { "retry-after": "1" } } : null) });
    const ids = await taps("throttle", 30);
    const id = await runningBatch(db, users, { ids, sink: { type: "http", url: server.url, concurrency: 1 }, ratePerSecond: 50 });
    worker();
    await settle(id);
    expect(await itemCounts(db.pool, id)).toEqual({ applied: 30 });
    const limited = server.deliveries[5] as { arrivedAt: number };
    const next = server.deliveries[6] as { arrivedAt: number };
    expect(next.arrivedAt - limited.arrivedAt).toBeGreaterThanOrEqual(950);
    const { rows } = await db.pool.query(`SELECT throttle, throttled_at FROM replay_batch WHERE id = $1`, [id]);
    expect(rows[0].throttle).toBe(0.5);
    expect(rows[0].throttled_at).not.toBeNull();
  });
});

describe("keys an HTTP header must carry", () => {
  it("sends any printable key verbatim (as UTF-8 bytes) and poisons, unsent, a key no header can carry", async () => {
    server = await startSinkServer({});
    const keys = ["clé-ü-€-地図", "line\nbreak"];
    const ids = await ingest(
      db,
      keys.map((key, i) => spatialEnvelope({ key, observedAt: i, featureId: `hdr-${i}` })),
    );
    await approve(db, ids);
    const id = await runningBatch(db, users, { ids, sink: { type: "http", url: server.url }, ratePerSecond: 100, maxAttempts: 3 });
    worker();
    await settle(id);
    expect(server.deliveries.map((d) => d.key)).toEqual(["clé-ü-€-地図"]);
    const { rows } = await db.pool.query(
      `SELECT idempotency_key, status::text, attempts, submitted_at, last_error FROM replay_item WHERE batch_id = $1 ORDER BY seq`,
      [id],
    );
    expect(rows).toEqual([
      expect.objectContaining({ idempotency_key: "clé-ü-€-地図", status: "applied" }),
      {
        idempotency_key: "line\nbreak",
        status: "poison",
        attempts: 1,
        submitted_at: null,
        last_error: "the idempotency key cannot be sent in an HTTP header: control character U+000A at character 4",
      },
    ]);
    const rec = await db.pool.query(`SELECT status::text, replay_count FROM dead_letter WHERE id = $1`, [ids[1]]);
    expect(rec.rows[0]).toEqual({ status: "quarantined", replay_count: 0 });
  });
});

describe("a batch the engine cannot run", () => {
  it("is failed with the reason, and its waiting items are cancelled", async () => {
    const [record] = await taps("badsink", 1);
    const id = await runningBatch(db, users, { ids: [record], sink: { type: "ledger" }, ratePerSecond: 10 });
    await db.pool.query(`UPDATE replay_batch SET sink = '{"type":"carrier-pigeon"}' WHERE id = $1`, [id]);
    worker();
    await waitFor("failed", async () => (await batchStatus(db, id)) === "failed", 10_000);
    const { rows } = await db.pool.query(`SELECT status_reason, cancelled_count FROM replay_batch WHERE id = $1`, [id]);
    expect(rows[0]).toEqual({ status_reason: expect.stringMatching(/^unusable sink configuration: /), cancelled_count: 1 });
    expect(await itemCounts(db.pool, id)).toEqual({ cancelled: 1 });
  });
});

describe("records that cannot be replayed", () => {
  it("drops a record that no longer passes re-validation and poisons one replayed too often, without sending either", async () => {
    server = await startSinkServer();
    const [bad] = await taps("invalid", 1, "2.50");
    const [worn, fine] = await taps("worn", 2);
    await db.pool.query(`UPDATE dead_letter SET replay_count = 3 WHERE id = $1`, [worn]);
    const id = await runningBatch(db, users, {
      ids: [bad, worn, fine],
      sink: { type: "http", url: server.url },
      ratePerSecond: 100,
      maxReplays: 3,
    });
    worker();
    await settle(id);
    expect(await itemCounts(db.pool, id)).toEqual({ dropped: 1, poison: 1, applied: 1 });
    expect(server.deliveries.map((d) => d.key)).toHaveLength(1);
    const recs = await db.pool.query(`SELECT id::text, status::text, reason FROM dead_letter WHERE id = ANY($1::bigint[]) ORDER BY id`, [
      [bad, worn],
    ]);
    expect(recs.rows).toEqual([
      { id: bad, status: "pending", reason: expect.stringMatching(/^tap schema: fare_amount_cents/) },
      { id: worn, status: "quarantined", reason: "replayed 3 times (the batch allows 3)" },
    ]);
  });
});

describe("a worker that dies holding items", () => {
  it("records a key the sink acknowledged even when the item was swept meanwhile, so the new owner does not send it again", async () => {
    const ids = await taps("stalled", 1);
    const id = await runningBatch(db, users, { ids, sink: { type: "http", url: "http://127.0.0.1:9/never" }, ratePerSecond: 100 });
    const [mine] = await claimItems(db.pool, { batchId: id, workerId: "stalled-worker", limit: 1, leaseMs: 60_000 });
    if (!mine) throw new Error("nothing claimed");
    // The worker got its 201 but stalled before recording it; meanwhile its lease was swept (as sweepExpired does).
    await db.pool.query(
      `UPDATE replay_item SET status = 'pending', locked_by = NULL, locked_until = NULL, lease_losses = 1 WHERE id = $1`,
      [mine.id],
    );
    const submission = {
      itemId: mine.id,
      batchId: id,
      deadLetterId: mine.deadLetterId,
      kind: mine.kind,
      idempotencyKey: mine.idempotencyKey,
      entityKey: mine.entityKey,
      observedAt: mine.observedAt,
      payload: {},
    };
    const counts = await inTransaction(db.pool, (c) =>
      writeOutcomes(c, [{ item: mine, type: "answered", submission, submittedAt: new Date(), result: { outcome: "applied" } }], {
        batchId: id,
        workerId: "stalled-worker",
        actor: { id: null, email: "worker:stalled", role: "system" },
        sink: makeSink(
          { type: "http", url: "http://127.0.0.1:9/never", timeoutMs: 1000, concurrency: 1, headers: {} },
          "stalled-worker",
          db.pool,
        ),
        maxAttempts: 5,
        random: () => 0.5,
        now: new Date(),
      }),
    );
    expect(counts.lost).toBe(1); // the item is not ours to finish…
    const item = await db.pool.query(`SELECT status::text, locked_by FROM replay_item WHERE id = $1`, [mine.id]);
    expect(item.rows[0]).toEqual({ status: "pending", locked_by: null });
    const ledger = await db.pool.query(`SELECT origin::text, item_id::text FROM ledger_entry WHERE idempotency_key = $1`, [
      mine.idempotencyKey,
    ]);
    expect(ledger.rows).toEqual([{ origin: "http", item_id: mine.id }]); // …but the acknowledgement is recorded
    // The next owner sees the key settled when it claims, and dedupes it without a request.
    const [again] = await claimItems(db.pool, { batchId: id, workerId: "next-worker", limit: 1, leaseMs: 60_000 });
    expect(again).toMatchObject({ id: mine.id, settled: true });
    expect(
      decideOrSubmit(again!, { batch: { repairMethod: "linework", repairPolicy: "accept", maxReplays: 3 } as never, geos: null }),
    ).toMatchObject({ type: "decided", outcome: "deduped" });
  });

  it("gets its items swept back after the lease and counted as a loss; repeated losses make the item poison", async () => {
    const ids = await taps("lease", 3);
    const id = await runningBatch(db, users, { ids, sink: { type: "ledger" }, ratePerSecond: 100 });
    const lost = await claimItems(db.pool, { batchId: id, workerId: "dead-worker", limit: 3, leaseMs: 300 });
    expect(lost).toHaveLength(3);
    await db.pool.query(`UPDATE replay_item SET lease_losses = $2 WHERE id = $1`, [lost[0]?.id, MAX_LEASE_LOSSES - 1]);
    worker(1000);
    await settle(id);
    const { rows } = await db.pool.query(`SELECT seq, status::text, lease_losses FROM replay_item WHERE batch_id = $1 ORDER BY seq`, [id]);
    expect(rows).toEqual([
      { seq: 1, status: "poison", lease_losses: MAX_LEASE_LOSSES },
      { seq: 2, status: "applied", lease_losses: 1 },
      { seq: 3, status: "applied", lease_losses: 1 },
    ]);
  });

  it("judges each worker by its own lease: a dead short-lease worker's items come back after two of its leases, a slow one keeps them", async () => {
    const ids = await taps("own-lease", 2);
    const id = await runningBatch(db, users, { ids, sink: { type: "ledger" }, ratePerSecond: 100 });
    await registerWorker(db.pool, { id: "dead-2s", hostname: "h", pid: 1 }, 2000);
    await registerWorker(db.pool, { id: "alive-2s", hostname: "h", pid: 2 }, 2000);
    const [a] = await claimItems(db.pool, { batchId: id, workerId: "dead-2s", limit: 1, leaseMs: 2000 });
    const [b] = await claimItems(db.pool, { batchId: id, workerId: "alive-2s", limit: 1, leaseMs: 2000 });
    if (!a || !b) throw new Error("nothing claimed");
    // Both leases ran out; the dead worker last beat 5 s ago (more than two of its 2 s leases, and far less than
    // two of the sweeper's default 30 s), the slow but live one 3 s ago.
    await db.pool.query(`UPDATE replay_item SET locked_until = now() - interval '1 second' WHERE batch_id = $1`, [id]);
    await db.pool.query(`UPDATE worker SET heartbeat_at = now() - interval '5 seconds' WHERE id = 'dead-2s'`);
    await db.pool.query(`UPDATE worker SET heartbeat_at = now() - interval '3 seconds' WHERE id = 'alive-2s'`);
    expect(await sweepExpired(db.pool)).toBe(1);
    const { rows } = await db.pool.query(
      `SELECT id::text, status::text, locked_by, lease_losses FROM replay_item WHERE batch_id = $1 ORDER BY seq`,
      [id],
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        { id: a.id, status: "pending", locked_by: null, lease_losses: 1 },
        { id: b.id, status: "running", locked_by: "alive-2s", lease_losses: 0 },
      ]),
    );
  });
});
