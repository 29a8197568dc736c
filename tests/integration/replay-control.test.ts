import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { tapSchemaFailures } from "../../lib/replay/batch/create-batch";
import { endedBatchesWithWaitingItems } from "../../lib/replay/engine/claim-items";
import { cancelWaitingItems } from "../../lib/replay/batch/apply-batch-action";
import type { BatchView, RateSeries } from "../../lib/replay/batch/batch-schemas";
import { startWorker, type WorkerHandle } from "../../lib/replay/engine/worker";
import * as actions from "../replay/action-routes";
import { afcRecord, approve, batchStatus, bulkApproved, ingest, itemCounts, waitFor } from "../replay/fixtures";
import { startSinkServer, type SinkServer } from "../replay/sink-server";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// The batch life cycle through the API as a supervisor would drive it: create, four-eyes approval, start,
// and pause / resume / cancel taking effect within a second while workers are submitting.

setTestAuthEnv();

let db: Db;
let tokenA: string;
let tokenB: string;
let tokenAnalyst: string;
const workers: WorkerHandle[] = [];

beforeAll(async () => {
  db = await testDb();
  tokenA = await makeToken(db, (await makeUser(db, "supervisor")).id);
  tokenB = await makeToken(db, (await makeUser(db, "supervisor")).id);
  tokenAnalyst = await makeToken(db, (await makeUser(db, "analyst")).id);
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

async function taps(prefix: string, n: number, devices = n): Promise<string[]> {
  const ids = await ingest(
    db,
    Array.from({ length: n }, (_, i) => afcRecord({ eventId: `${prefix}-${i}`, deviceId: `${prefix}-dev-${i % devices}`, at: i })),
  );
  await approve(db, ids);
  return ids;
}

/** `n` approved records generated in SQL (the pipeline would take a while for thousands); their ids. */
async function bulkIds(prefix: string, n: number): Promise<string[]> {
  await bulkApproved(db.pool, { count: n, prefix, kind: "afc", source: prefix });
  const { rows } = await db.pool.query<{ id: string }>("SELECT id::text AS id FROM dead_letter WHERE source = $1 ORDER BY dead_letter.id", [
    prefix,
  ]);
  return rows.map((r) => r.id);
}

describe("creating and approving a batch", () => {
  it("creates a draft (201) and refuses approval by its creator (four-eyes), accepts another supervisor", async () => {
    const ids = await taps("fe", 3);
    const created = await actions.create(tokenA, { ids, sink: { type: "ledger" }, ratePerSecond: 10 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "draft", total: 3, ratePerSecond: 10, counts: { pending: 3, applied: 0 } });
    const id = (created.body as { id: string }).id;

    const own = await actions.act(tokenA, id, "approve");
    expect(own.status).toBe(403);
    expect(own.body).toMatchObject({ error: { code: "forbidden", rule: "four_eyes" } });
    expect(await batchStatus(db, id)).toBe("draft");

    expect((await actions.act(tokenAnalyst, id, "approve")).status).toBe(403);
    expect((await actions.act(tokenA, id, "start")).status).toBe(409); // not approved yet
    const approved = await actions.act(tokenB, id, "approve");
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: "approved", approvedBy: { email: expect.stringContaining("supervisor") } });

    const list = await actions.list(tokenAnalyst);
    expect((list.body as { batches: BatchView[] }).batches.map((b) => b.id)).toContain(id);
    const audit = await db.pool.query(`SELECT action FROM audit_event WHERE target_type = 'replay_batch' AND target_id = $1 ORDER BY id`, [
      id,
    ]);
    expect(audit.rows.map((r) => r.action)).toEqual(["replay_batch.create", "replay_batch.approve"]);
  });

  it("refuses explicit ids that are not approved, naming them (422)", async () => {
    const ids = await ingest(db, [
      afcRecord({ eventId: "na-1", deviceId: "na", at: 1 }),
      afcRecord({ eventId: "na-2", deviceId: "na", at: 2 }),
    ]);
    await approve(db, [ids[0] as string]);
    const res = await actions.create(tokenA, { ids, sink: { type: "ledger" }, ratePerSecond: 10 });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      error: { code: "validation_failed", issues: [{ path: "ids.1", message: `record ${ids[1]} is pending, not approved` }] },
    });
  });

  it("refuses an HTTP sink fetch could never send to (422 naming the field), and creates nothing", async () => {
    const ids = await taps("nf", 1);
    const body = (sink: unknown) => ({ ids, sink, ratePerSecond: 10 });
    const credentials = await actions.create(tokenA, body({ type: "http", url: "http://user:pass@127.0.0.1:9/x" }));
    expect(credentials.status).toBe(422);
    expect(credentials.body).toMatchObject({ error: { code: "validation_failed", issues: [{ path: "sink.url" }] } });
    const header = await actions.create(tokenA, body({ type: "http", url: "http://127.0.0.1:9/x", headers: { "X-Team": "\u20ac" } }));
    expect(header.status).toBe(422);
    expect(header.body).toMatchObject({ error: { code: "validation_failed", issues: [{ path: "sink.headers.X-Team" }] } });
    expect(await db.pool.query(`SELECT 1 FROM replay_item WHERE dead_letter_id = ANY($1::bigint[])`, [ids])).toMatchObject({ rowCount: 0 });
  });

  it("counts, before the batch exists, the approved AFC taps that still fail their schema (the replay will drop them)", async () => {
    const ids = await ingest(db, [
      afcRecord({ eventId: "sf-1", deviceId: "sf", at: 1 }),
      afcRecord({ eventId: "sf-2", deviceId: "sf", at: 2, fare: "two fifty" }),
      afcRecord({ eventId: "sf-3", deviceId: "sf", at: 3, fare: -5 }),
    ]);
    await approve(db, ids);
    expect(await tapSchemaFailures(db.pool, { scope: UNSCOPED, ids })).toEqual({ failing: 2, checked: 3, complete: true });
    expect(await tapSchemaFailures(db.pool, { scope: UNSCOPED, ids: [ids[0]!] })).toEqual({ failing: 0, checked: 1, complete: true });
  });

  it("creates only what the supervisor saw: a count other than expectedCount is a 409 with the count now", async () => {
    const ids = await taps("exp", 3);
    const body = { ids, sink: { type: "ledger" }, ratePerSecond: 5 };
    const conflict = await actions.create(tokenA, { ...body, expectedCount: 2 });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({
      error: { code: "conflict", matched: 3, issues: [{ path: "expectedCount", message: "is 3 now" }] },
    });
    expect(await db.pool.query(`SELECT 1 FROM replay_item WHERE dead_letter_id = ANY($1::bigint[])`, [ids])).toMatchObject({ rowCount: 0 });
    expect((await actions.create(tokenA, { ...body, expectedCount: 3 })).status).toBe(201);
  });

  it("takes what a filter selects among approved records and says what it left out", async () => {
    await taps("flt", 4);
    const res = await actions.create(tokenA, { filter: { kind: ["afc"], q: "flt-dev-1" }, sink: { type: "ledger" }, ratePerSecond: 5 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ total: 1, skipped: { notApproved: 0, inActiveBatch: 0, noKey: 0 } });
    const again = await actions.create(tokenA, { filter: { kind: ["afc"], q: "flt-dev-1" }, sink: { type: "ledger" }, ratePerSecond: 5 });
    expect(again.status).toBe(422); // the record is in the first (active) batch, and the answer says so
    expect(again.body).toMatchObject({
      error: { message: "selection: no approved record matches (nothing to replay); 1 approved is already in an active batch" },
    });
    const wrongStatus = await actions.create(tokenA, { filter: { status: ["pending"] }, sink: { type: "ledger" }, ratePerSecond: 5 });
    expect(wrongStatus.status).toBe(422);
    // A misspelt filter key is refused by name, not ignored (ignored, it would select every approved record).
    const typo = await actions.create(tokenA, {
      filter: { status: ["approved"], sourcee: "x" },
      sink: { type: "ledger" },
      ratePerSecond: 5,
    });
    expect(typo.status).toBe(422);
    expect(typo.body).toMatchObject({
      error: { code: "validation_failed", issues: [{ path: "filter.sourcee", message: "is not a recognized field" }] },
    });
  });
});

describe("pause, resume and cancel while workers submit", () => {
  let server: SinkServer;
  afterEach(async () => server?.close());

  async function started(prefix: string, n: number, rate: number): Promise<string> {
    const ids = await taps(prefix, n);
    const created = await actions.create(tokenA, { ids, sink: { type: "http", url: server.url, concurrency: 2 }, ratePerSecond: rate });
    const id = (created.body as { id: string }).id;
    expect((await actions.act(tokenB, id, "approve")).status).toBe(200);
    expect((await actions.act(tokenA, id, "start")).status).toBe(200);
    for (let i = 0; i < 2; i++) workers.push(startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 200 }));
    return id;
  }

  const arrivalsAfter = (t: number) => server.deliveries.filter((d) => d.arrivedAt > t).length;

  it("pause stops submissions within 1 s, resume picks up, cancel ends it within 1 s", async () => {
    server = await startSinkServer();
    const id = await started("pr", 400, 40);
    await waitFor("first submissions", async () => server.deliveries.length >= 20);

    const pause = await actions.act(tokenA, id, "pause");
    const pausedAt = Date.now();
    expect(pause.body).toMatchObject({ status: "paused" });
    await new Promise((r) => setTimeout(r, 1800));
    expect(arrivalsAfter(pausedAt + 1000)).toBe(0);
    const held = await itemCounts(db.pool, id);
    expect(held.running ?? 0).toBe(0); // claimed but unsent items went back to the queue

    const before = server.deliveries.length;
    await actions.act(tokenA, id, "resume");
    const resumedAt = Date.now();
    await waitFor("submissions after resume", async () => server.deliveries.length > before + 5, 5000);
    expect((server.deliveries[before]?.arrivedAt ?? Infinity) - resumedAt).toBeLessThan(1000);

    const cancel = await actions.act(tokenA, id, "cancel");
    const cancelledAt = Date.now();
    expect(cancel.body).toMatchObject({ status: "cancelled" });
    await new Promise((r) => setTimeout(r, 1800));
    expect(arrivalsAfter(cancelledAt + 1000)).toBe(0);
    const end = await waitFor(
      "every item finished",
      async () => {
        const c = await itemCounts(db.pool, id);
        return (c.pending ?? 0) + (c.running ?? 0) + (c.retry ?? 0) === 0 ? c : null;
      },
      10_000,
    );
    expect((end.applied ?? 0) + (end.cancelled ?? 0)).toBe(400);
    expect(end.applied).toBe(new Set(server.deliveries.map((d) => d.key)).size);
    const view = await actions.get(tokenAnalyst, id);
    expect(view.body).toMatchObject({ status: "cancelled", counts: { pending: 0, applied: end.applied, cancelled: end.cancelled } });
  });

  // Arrival times are measured at the test's HTTP server, so a scheduling hiccup on a loaded 2-core runner can
  // bunch deliveries into one window; a real pacing fault fails every attempt.
  it("paced at the configured rate across two workers (submissions per second, from the API's rate series)", { retry: 2 }, async () => {
    server = await startSinkServer();
    const id = await started("rate", 120, 30);
    await waitFor("all applied", async () => (await batchStatus(db, id)) === "completed", 20_000);
    const times = server.deliveries.map((d) => d.arrivedAt).sort((a, b) => a - b);
    const achieved = (times.length - 1) / (((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000);
    expect(Math.abs(achieved - 30) / 30).toBeLessThan(0.05);
    let worst = 0;
    for (let lo = 0, hi = 0; hi < times.length; hi++) {
      while ((times[hi] as number) - (times[lo] as number) >= 1000) lo++;
      worst = Math.max(worst, hi - lo + 1);
    }
    expect(worst).toBeLessThanOrEqual(33);
    const series = await actions.rate(tokenAnalyst, id);
    expect((series.body as RateSeries).points.reduce((s, p) => s + p.count, 0)).toBe(120);
  });
});

describe("cancelling a batch with many waiting items", () => {
  it("answers at once, counting them cancelled; they are marked after the answer, and the sweeper finishes what is left", async () => {
    const ids = await bulkIds("many", 3000);
    const created = await actions.create(tokenA, { ids, sink: { type: "ledger" }, ratePerSecond: 10 });
    const id = (created.body as { id: string }).id;
    expect((await actions.act(tokenB, id, "approve")).status).toBe(200);
    const cancel = await actions.act(tokenA, id, "cancel");
    expect(cancel.body).toMatchObject({ status: "cancelled", counts: { pending: 0, cancelled: 3000 } });
    await waitFor("items marked", async () => ((await itemCounts(db.pool, id)).cancelled ?? 0) === 3000, 10_000);
    const batch = await db.pool.query("SELECT cancelled_count FROM replay_batch WHERE id = $1", [id]);
    expect(batch.rows[0].cancelled_count).toBe(3000);

    // A canceller that stopped before marking its items: the sweeper's query finds the batch, and marking ends it.
    const again = await actions.create(tokenA, { ids: ids.slice(0, 10), sink: { type: "ledger" }, ratePerSecond: 10 });
    const second = (again.body as { id: string }).id;
    await db.pool.query("UPDATE replay_batch SET status = 'cancelled' WHERE id = $1", [second]);
    expect(await endedBatchesWithWaitingItems(db.pool)).toEqual([second]);
    expect(await cancelWaitingItems(db.pool, second, new Date(), 4)).toBe(10);
    expect(await endedBatchesWithWaitingItems(db.pool)).toEqual([]);
    expect(await itemCounts(db.pool, second)).toEqual({ cancelled: 10 });
  });
});
