import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, createDb, type Db } from "../../lib/db/client";
import { startWorker } from "../../lib/replay/engine/worker";
import { afcRecord, approve, batchStatus, ingest, runningBatch, type TestUsers, waitFor } from "../replay/fixtures";
import { startSinkServer } from "../replay/sink-server";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Per-entity ordering with two workers (two pools, as two processes would have): for each device the taps
// arrive oldest observation first, and a newer one only after the older one's answer came back — although
// both workers claim in parallel, each with several requests in flight.

setTestAuthEnv();

let db: Db;
let other: Db;
let users: TestUsers;

beforeAll(async () => {
  db = await testDb();
  other = createDb(db.url, 8);
  const [a, b] = [await makeUser(db, "supervisor"), await makeUser(db, "supervisor")];
  users = {
    creator: { scope: UNSCOPED, userId: a.id, email: a.email, role: a.role },
    approver: { scope: UNSCOPED, userId: b.id, email: b.email, role: b.role },
  };
});

afterAll(async () => {
  await other.pool.end();
  await db.pool.end();
  await closeDb();
});

describe("entity ordering", () => {
  it("holds across two workers: per device, oldest first, one at a time", async () => {
    const DEVICES = 6;
    const N = 240;
    // Observation times shuffled against insertion order, so ids and observations disagree.
    const order = Array.from({ length: N }, (_, i) => (i * 97) % N);
    const ids = await ingest(
      db,
      order.map((at, i) => afcRecord({ eventId: `ord-${i}`, deviceId: `ord-dev-${i % DEVICES}`, at })),
    );
    await approve(db, ids);
    const server = await startSinkServer({ delayMs: 5 });
    const id = await runningBatch(db, users, {
      ids,
      sink: { type: "http", url: server.url, concurrency: 4 },
      // A second or more of work in small pages: under load the second worker's first poll can come late, and
      // five large pages at 400/s were once all taken by the first.
      ratePerSecond: 200,
      pageSize: 20,
    });
    const workers = [db, other].map((d) => startWorker({ db: d, log: () => {}, leaseMs: 5000, pollMs: 50, concurrency: 2 }));
    try {
      await waitFor("completion", async () => (await batchStatus(db, id)) === "completed", 30_000);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await server.close();
    }
    expect(server.deliveries).toHaveLength(N);
    const byDevice = new Map<string, typeof server.deliveries>();
    for (const d of server.deliveries) byDevice.set(d.entity ?? "", [...(byDevice.get(d.entity ?? "") ?? []), d]);
    expect(byDevice.size).toBe(DEVICES);
    for (const [device, list] of byDevice) {
      const observed = list.map((d) => d.observedAt);
      expect(observed, `device ${device} out of order`).toEqual([...observed].sort());
      for (let i = 1; i < list.length; i++) {
        const prev = list[i - 1] as (typeof list)[number];
        const cur = list[i] as (typeof list)[number];
        expect(cur.arrivedAt, `device ${device}: a newer tap arrived before the older one was answered`).toBeGreaterThanOrEqual(
          prev.doneAt,
        );
      }
    }
    // Both workers took part.
    const { rows } = await db.pool.query(
      `SELECT count(DISTINCT actor_email)::int AS n FROM audit_event WHERE action = 'replay.applied' AND after->>'batchId' = $1`,
      [id],
    );
    expect(rows[0].n).toBe(2);
  });
});

describe("batch order", () => {
  it("one worker with two lanes sends a paced batch oldest observation first", async () => {
    const N = 24;
    // Every tap its own device, so the per-entity rule holds nothing back: only the batch order is tested.
    const order = Array.from({ length: N }, (_, i) => (i * 7) % N);
    const ids = await ingest(
      db,
      order.map((at, i) => afcRecord({ eventId: `seq-${i}`, deviceId: `seq-dev-${i}`, at: 1000 + at })),
    );
    await approve(db, ids);
    const server = await startSinkServer({ delayMs: 2 });
    // 40/s: each lane claims a few items at a time, so the two lanes' pages alternate all through the batch.
    const id = await runningBatch(db, users, {
      ids,
      sink: { type: "http", url: server.url, concurrency: 1 },
      ratePerSecond: 40,
      pageSize: 50,
    });
    const worker = startWorker({ db, log: () => {}, leaseMs: 5000, pollMs: 50, concurrency: 2 });
    try {
      await waitFor("completion", async () => (await batchStatus(db, id)) === "completed", 30_000);
    } finally {
      await worker.stop();
      await server.close();
    }
    const observed = server.deliveries.map((d) => d.observedAt);
    expect(observed).toHaveLength(N);
    expect(observed).toEqual([...observed].sort());
  });
});

describe("pacing at a low rate", () => {
  it("keeps every 1-s window within 110% of 5/s (at most 5), submitted times from the items", async () => {
    const N = 26;
    const ids = await ingest(
      db,
      Array.from({ length: N }, (_, i) => afcRecord({ eventId: `slow-${i}`, deviceId: `slow-dev-${i}`, at: 5000 + i })),
    );
    await approve(db, ids);
    const id = await runningBatch(db, users, { ids, sink: { type: "ledger" }, ratePerSecond: 5, pageSize: 10 });
    const worker = startWorker({ db, log: () => {}, leaseMs: 5000, pollMs: 50, concurrency: 2 });
    try {
      await waitFor("completion", async () => (await batchStatus(db, id)) === "completed", 30_000);
    } finally {
      await worker.stop();
    }
    const { rows } = await db.pool.query<{ t: number }>(
      `SELECT (extract(epoch FROM submitted_at) * 1000)::float8 AS t FROM replay_item WHERE batch_id = $1 ORDER BY submitted_at`,
      [id],
    );
    const times = rows.map((r) => r.t);
    expect(times).toHaveLength(N);
    let worst = 0;
    for (let lo = 0, hi = 0; hi < times.length; hi++) {
      while ((times[hi] as number) - (times[lo] as number) >= 1000) lo++;
      worst = Math.max(worst, hi - lo + 1);
    }
    expect(worst).toBeLessThanOrEqual(5);
    const achieved = (N - 1) / (((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000);
    expect(Math.abs(achieved - 5) / 5).toBeLessThan(0.05);
  });
});
