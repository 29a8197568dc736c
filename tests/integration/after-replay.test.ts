import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { closeDb, type Db } from "../../lib/db/client";
import { failureGroupId } from "../../lib/dead-letters/groups/group-id";
import { recordTimeline } from "../../lib/forensics/timeline";
import { unresolvedCount } from "../../lib/ops/measures";
import { runRetention } from "../../lib/ops/retention";
import { startWorker, type WorkerHandle } from "../../lib/replay/engine/worker";
import type { PulledMessage, SourceConnector } from "../../lib/sources/connector";
import { pullSource } from "../../lib/sources/pull-source";
import { batchStatus, runningBatch, type TestUsers, waitFor } from "../replay/fixtures";
import { startSinkServer } from "../replay/sink-server";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// A record's life after its replay (issue 41 point 1): once replayed, any later arrival of its key — over HTTP from
// any producer, or a pulled message at a position not seen before — is a new failure: the record is back in triage
// with its class decided again, the failure (with the batch that had sent it) in its history and timeline, and its
// group counting it (a resolved one reopens as a regression). A message pulled again at a position already seen
// (a redelivery after a crash) still counts nothing.

setTestAuthEnv();

const ingestRoute = await import("../../app/api/dead-letters/route");
const detailRoute = await import("../../app/api/dead-letters/[id]/route");
const actionsRoute = await import("../../app/api/dead-letters/[id]/actions/route");

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

let db: Db;
let users: TestUsers;
let producerA: string;
let producerB: string;
let analyst: string;
const workers: WorkerHandle[] = [];

beforeAll(async () => {
  db = await testDb();
  const [s1, s2, a, b, an] = await Promise.all([
    makeUser(db, "supervisor"),
    makeUser(db, "supervisor"),
    makeUser(db, "producer"),
    makeUser(db, "producer"),
    makeUser(db, "analyst"),
  ]);
  users = {
    creator: { scope: UNSCOPED, userId: s1.id, email: s1.email, role: s1.role },
    approver: { scope: UNSCOPED, userId: s2.id, email: s2.email, role: s2.role },
  };
  [producerA, producerB, analyst] = await Promise.all([makeToken(db, a.id), makeToken(db, b.id), makeToken(db, an.id)]);
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const square = [
  [
    [2.35, 48.85],
    [2.36, 48.85],
    [2.36, 48.86],
    [2.35, 48.86],
    [2.35, 48.85],
  ],
];

const envelope = (key: string, reason: string, extra: Record<string, unknown> = {}) => ({
  kind: "spatial",
  source: "after-replay",
  idempotency_key: key,
  observed_at: "2026-12-01T00:00:00Z",
  feature: { type: "Feature", id: key, geometry: { type: "Polygon", coordinates: square }, properties: {} },
  dead_letter_reason: reason,
  ...extra,
});

async function call(handler: Handler, path: string, token: string, opts: { body?: unknown; params?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await handler(
    new Request(`http://localhost/api${path}`, {
      method: opts.body === undefined ? "GET" : "POST",
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    { params: Promise.resolve(opts.params ?? {}) },
  );
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

async function send(token: string, body: unknown): Promise<{ status: string; id?: string }> {
  const res = await call(ingestRoute.POST, "/dead-letters", token, { body });
  expect(res.status).toBe(200);
  return (res.body as { results: { status: string; id?: string }[] }).results[0]!;
}

async function record(id: string) {
  const { rows } = await db.pool.query<{
    status: string;
    failure_class: string;
    class_reason: string | null;
    reason: string;
    failure_count: number;
    replay_count: number;
  }>(`SELECT status::text, failure_class::text, class_reason, reason, failure_count, replay_count FROM dead_letter WHERE id = $1`, [id]);
  return rows[0]!;
}

async function failures(id: string) {
  const { rows } = await db.pool.query<{
    attempt: number;
    origin: string;
    batch_id: string | null;
    reason: string;
    also_sent_by: string | null;
  }>(`SELECT attempt, origin, batch_id::text, reason, also_sent_by FROM failure_attempt WHERE dead_letter_id = $1 ORDER BY attempt`, [id]);
  return rows;
}

/** Approves the records and replays them through the built-in ledger with a real worker; the batch's id. */
async function replay(ids: string[]): Promise<string> {
  await db.pool.query(`UPDATE dead_letter SET status = 'approved' WHERE id = ANY($1::bigint[])`, [ids]);
  const batch = await runningBatch(db, users, { ids, sink: { type: "ledger" }, ratePerSecond: 100 });
  workers.push(startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 50, backoff: { baseMs: 20, maxMs: 200 } }));
  await waitFor("the batch to complete", async () => (await batchStatus(db, batch)) === "completed");
  for (const id of ids) expect((await record(id)).status).toBe("replayed");
  return batch;
}

describe("over HTTP", () => {
  it("a replayed record whose key arrives again, from another producer, is back in triage, counted in its reopened group", async () => {
    const created = await send(producerA, envelope("ar-http-1", "HTTP 503 from parcels"));
    expect(created.status).toBe("created");
    const id = created.id!;
    const batch = await replay([id]);
    const { rows: rg } = await db.pool.query<{ reason_group: string }>(`SELECT reason_group FROM dead_letter WHERE id = $1`, [id]);
    const reasonGroup = rg[0]!.reason_group;
    const group = failureGroupId("after-replay", reasonGroup);
    await db.pool.query(`UPDATE failure_group SET status = 'resolved', resolution_reason = 'fixed', resolved_at = now() WHERE id = $1`, [
      group,
    ]);

    const unresolvedBefore = await unresolvedCount(db.pool, UNSCOPED);
    const again = await send(producerB, envelope("ar-http-1", "HTTP 503 from parcels", { replay_count: 3 }));
    expect(again).toEqual({ index: 0, status: "duplicate" }); // another producer's record: no id
    // back in triage, transient (one replay of three), B's reported replay count ignored
    expect(await record(id)).toMatchObject({ status: "pending", failure_class: "transient", failure_count: 2, replay_count: 1 });
    expect((await failures(id)).at(-1)).toMatchObject({ attempt: 2, origin: "ingest", batch_id: batch, also_sent_by: null });
    const g = await db.pool.query(`SELECT status::text, regression FROM failure_group WHERE id = $1`, [group]);
    expect(g.rows[0]).toEqual({ status: "open", regression: true });
    const pendingInGroup = await db.pool.query<{ n: string }>(
      `SELECT coalesce(sum(n), 0)::text AS n FROM dead_letter_stat WHERE source = 'after-replay' AND reason_group = $1 AND status = 'pending'`,
      [reasonGroup],
    );
    expect(Number(pendingInGroup.rows[0]?.n)).toBe(1);
    expect(await unresolvedCount(db.pool, UNSCOPED)).toBe(unresolvedBefore + 1); // the overview's unresolved count moves

    // the record's page (its API) and its timeline say so
    const detail = await call(detailRoute.GET, `/dead-letters/${id}`, analyst, { params: { id } });
    expect(detail.status).toBe(200);
    expect((detail.body as { failures: unknown[] }).failures.at(-1)).toMatchObject({ origin: "ingest", batchId: batch, alsoSentBy: null });
    const timeline = await recordTimeline(db.pool, UNSCOPED, id, null);
    expect(timeline.events.map((e) => e.summary)).toContainEqual(expect.stringContaining(`Failed again after replay in batch #${batch}`));

    // a second re-send while it is back in triage is an ordinary repeat again (the owner's) or a noted one (B's)
    expect((await send(producerA, envelope("ar-http-1", "HTTP 503 again"))).id).toBe(id);
    expect(await record(id)).toMatchObject({ status: "pending", failure_count: 3, reason: "HTTP 503 again" });
  });

  it("a death that arrives while its replay is in flight (sent, the outcome not yet written) is a failure after replay", async () => {
    const { id } = await send(producerA, envelope("ar-http-flight", "HTTP 503 from parcels"));
    await db.pool.query(`UPDATE dead_letter SET status = 'approved' WHERE id = $1`, [id]);
    // The consumer takes the replay, rejects it downstream (a new death reaches Redrive at once), and only then
    // answers the sink's request.
    const server = await startSinkServer({ delayMs: 1500 });
    try {
      const batch = await runningBatch(db, users, { ids: [id], sink: { type: "http", url: server.url }, ratePerSecond: 100 });
      workers.push(startWorker({ db, log: () => {}, leaseMs: 10_000, pollMs: 50, backoff: { baseMs: 20, maxMs: 200 } }));
      await waitFor("the replay to reach the consumer", async () => server.deliveries.length === 1);
      expect((await record(id!)).status).toBe("approved");
      expect((await send(producerA, envelope("ar-http-flight", "rejected downstream after replay"))).id).toBe(id);
      await waitFor("the batch to complete", async () => (await batchStatus(db, batch)) === "completed");
      expect(server.deliveries.map((d) => d.action)).toEqual(["applied"]);
      // The outcome settled the item, and left the record in triage where the new death put it.
      expect(await record(id!)).toMatchObject({
        status: "pending",
        reason: "rejected downstream after replay",
        failure_count: 2,
        replay_count: 1,
      });
      expect((await failures(id!)).at(-1)).toMatchObject({ attempt: 2, origin: "ingest", batch_id: batch });
      const timeline = await recordTimeline(db.pool, UNSCOPED, id!, null);
      expect(timeline.events.map((e) => e.summary)).toContainEqual(expect.stringContaining(`Failed again after replay in batch #${batch}`));
    } finally {
      await server.close();
    }
  });

  it("a record retention stripped after its replay comes back with the arriving payload, and can be approved again", async () => {
    const { id } = await send(producerA, envelope("ar-http-stripped", "HTTP 503 from parcels"));
    await replay([id!]);
    const { stripped } = await runRetention(db.pool, new Date(Date.now() + 86_400_000), 0);
    expect(stripped).toBeGreaterThanOrEqual(1);
    const gone = await db.pool.query(`SELECT payload IS NULL AS p, raw_envelope IS NULL AS r FROM dead_letter WHERE id = $1`, [id]);
    expect(gone.rows[0]).toEqual({ p: true, r: true });
    expect((await send(producerA, envelope("ar-http-stripped", "rejected again, a month later"))).id).toBe(id);
    const back = await db.pool.query(
      `SELECT status::text, payload->>'id' AS feature, analysis IS NOT NULL AS analysed, bbox IS NOT NULL AS boxed, raw_envelope IS NULL AS r
       FROM dead_letter WHERE id = $1`,
      [id],
    );
    // The working payload and its analysis are the arriving ones; the evidence retention removed stays removed.
    expect(back.rows[0]).toEqual({ status: "pending", feature: "ar-http-stripped", analysed: true, boxed: true, r: true });
    const detail = await call(detailRoute.GET, `/dead-letters/${id}`, analyst, { params: { id: id! } });
    const version = (detail.body as { version: number }).version;
    const approved = await call(actionsRoute.POST, `/dead-letters/${id}/actions`, analyst, {
      params: { id: id! },
      body: { action: "approve", version },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect((await record(id!)).status).toBe("approved");
  });

  it("past the replay limit the record comes back poison, in quarantine", async () => {
    const { id } = await send(producerA, envelope("ar-http-2", "timeout"));
    await replay([id!]);
    await db.pool.query(`UPDATE dead_letter SET replay_count = 3 WHERE id = $1`, [id]);
    expect((await send(producerA, envelope("ar-http-2", "timeout"))).id).toBe(id);
    expect(await record(id!)).toMatchObject({ status: "quarantined", failure_class: "poison", class_reason: "replayed 3 times" });
  });
});

describe("from a broker", () => {
  const message = (key: string, position: string): PulledMessage => ({
    body: Buffer.from(JSON.stringify(envelope(key, "rejected by the parcel consumer"))),
    receipt: position,
    origin: {
      sourceType: "rabbitmq",
      destination: { type: "rabbitmq", exchange: "parcels", routingKeys: ["parcels.new"], queue: "parcels" },
      deathReason: "rejected",
      deliveryCount: 1,
      messageId: key,
      position,
      publishedAt: null,
      diedAt: null,
      headers: {},
      properties: {},
    },
  });
  const queue = (messages: PulledMessage[]): SourceConnector => ({
    provision: async () => {},
    deprovision: async () => {},
    waiting: async () => messages.length,
    take: async (max) => messages.splice(0, max),
    ack: async () => {},
    publish: async () => ({ outcome: "applied" }),
    close: async () => {},
  });
  const pull = (messages: PulledMessage[]) =>
    pullSource(db.pool, { name: "parcels-dlq", type: "rabbitmq", kind: "spatial" }, queue(messages), {
      actor: SYSTEM_ACTOR,
      requestId: "t",
      clock: () => new Date(),
    });

  it("a new position of a replayed record's key is a failure after replay; the same position again counts nothing", async () => {
    expect(await pull([message("ar-pull-1", "parcels.dlq/m-1")])).toEqual({ pulled: 1, created: 1, duplicates: 0, unreadable: 0 });
    const { rows } = await db.pool.query<{ id: string }>(`SELECT id::text FROM dead_letter WHERE idempotency_key = 'ar-pull-1'`);
    const id = rows[0]!.id;
    const batch = await replay([id]);

    // redelivered after a crash: the position is known, nothing is counted
    expect(await pull([message("ar-pull-1", "parcels.dlq/m-1")])).toEqual({ pulled: 1, created: 0, duplicates: 1, unreadable: 0 });
    expect(await record(id)).toMatchObject({ status: "replayed", failure_count: 1 });

    // died again after the replay: a new position
    expect(await pull([message("ar-pull-1", "parcels.dlq/m-1@2")])).toEqual({
      pulled: 1,
      created: 0,
      duplicates: 0,
      unreadable: 0,
      failedAgain: 1,
    });
    expect(await record(id)).toMatchObject({ status: "pending", failure_class: "transient", failure_count: 2 });
    expect((await failures(id)).at(-1)).toMatchObject({ attempt: 2, origin: "pull", batch_id: batch });
    const timeline = await recordTimeline(db.pool, UNSCOPED, id, null);
    expect(timeline.events.at(-1)?.summary).toMatch(new RegExp(`^Failed again after replay in batch #${batch} .*back in triage$`));
  });
});

describe("before a replay (issue 40 point 4)", () => {
  it("another producer's re-send answers duplicate without the id and changes neither status, class, reason nor replay count", async () => {
    const { id } = await send(producerA, envelope("ar-other-1", "schema mismatch"));
    await db.pool.query(`UPDATE dead_letter SET status = 'approved' WHERE id = $1`, [id]);
    const before = await record(id!);
    const again = await send(producerB, envelope("ar-other-1", "B says poison", { replay_count: 3 }));
    expect(again).toEqual({ index: 0, status: "duplicate" });
    expect(await record(id!)).toEqual({ ...before, failure_count: 2 });
    expect((await failures(id!)).at(-1)).toMatchObject({ attempt: 2, reason: "B says poison", batch_id: null });
    expect((await failures(id!)).at(-1)?.also_sent_by).toMatch(/@/);
    const timeline = await recordTimeline(db.pool, UNSCOPED, id!, null);
    expect(timeline.events.at(-1)?.summary).toMatch(/^The same key was also sent by .*: B says poison — the record was left as it is$/);
    // the owner's own re-send stays what it is: one more failure, with the id
    const own = await send(producerA, envelope("ar-other-1", "schema mismatch again"));
    expect(own).toEqual({ index: 0, status: "duplicate", id });
    expect(await record(id!)).toMatchObject({ status: "approved", failure_count: 3, reason: "schema mismatch again" });
  });
});
