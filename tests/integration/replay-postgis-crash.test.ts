import { spawn, type ChildProcess } from "node:child_process";
import { UNSCOPED } from "../../lib/scope/record-scope";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { startWorker, type WorkerHandle } from "../../lib/replay/engine/worker";
import { closeTargetPools } from "../../lib/replay/sinks/postgis/target-pools";
import { approve, batchStatus, EPOCH, ingest, runningBatch, spatialEnvelope, type TestUsers, waitFor } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { createFeatureTable, createPostgisTarget, postgisServer, sinkFor, type PostgisTarget } from "./postgis-target";

// A worker SIGKILLed between the target's commit and Redrive's: the page is in the PostGIS table and its keys in
// the key table, but Redrive never recorded the outcomes. The items' leases expire, another worker sends the page
// again, and the key table turns every item into `deduped`: each key applied once.
//
// The gap is held open from outside, with no hook in the worker: the outcome transaction takes the batch's stop
// lock shared (stop-lock.ts), so this test holds it exclusively while the worker process sends.

setTestAuthEnv();
// The worker process unseals the sink's URL with the same key this process sealed it with.
process.env.REDRIVE_SECRET_KEY ??= "postgis-crash-test-key-0123456789abcdefghijklmnop";

const server = await postgisServer();
const unavailable = server.skip;

const BATCH_STOP_LOCK = 0x5245_4433;
let db: Db;
let users: TestUsers;
let target: PostgisTarget;

beforeAll(async () => {
  if (unavailable) return;
  db = await testDb();
  const [a, b] = [await makeUser(db, "supervisor"), await makeUser(db, "supervisor")];
  users = {
    creator: { scope: UNSCOPED, userId: a.id, email: a.email, role: a.role },
    approver: { scope: UNSCOPED, userId: b.id, email: b.email, role: b.role },
  };
  target = await createPostgisTarget(server);
  await createFeatureTable(target.pool);
});

afterAll(async () => {
  if (unavailable) return;
  await closeTargetPools();
  await target?.drop();
  await db.pool.end();
  await closeDb();
});

function spawnWorker(): { child: ChildProcess; exited: Promise<unknown>; log: string[] } {
  const log: string[] = [];
  const child = spawn(
    process.execPath,
    ["bin/redrive.mjs", "worker", "--lease-ms", "1000", "--concurrency", "1", "--no-pull", "--no-maintenance"],
    { cwd: process.cwd(), env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL }, stdio: ["ignore", "ignore", "pipe"] },
  );
  child.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { child, exited, log };
}

describe.skipIf(unavailable !== null)("PostGIS sink: a crash between the target's commit and Redrive's", () => {
  it("leaves each key applied once: the resent page comes back deduped", async () => {
    const ids = await ingest(
      db,
      [1, 2, 3].map((n) => spatialEnvelope({ key: `crash-${n}`, observedAt: 500 + n, featureId: `crash-${n}` })),
    );
    await approve(db, ids);
    const id = await runningBatch(db, users, { ids, sink: sinkFor(target.url), ratePerSecond: 1_000_000, pageSize: 10 });
    const gate = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await gate.connect();
    await gate.query(`SELECT pg_advisory_lock($1, ($2::bigint % 2147483647)::int)`, [BATCH_STOP_LOCK, id]);
    const { child, exited, log } = spawnWorker();
    try {
      // The target committed the page…
      await waitFor(
        "the page in the target",
        async () => {
          const exists = await target.pool.query(`SELECT to_regclass('gis.redrive_applied_key') IS NOT NULL AS yes`);
          if (!exists.rows[0].yes) return false; // created by the sink on first use
          const { rows } = await target.pool.query(
            `SELECT count(*)::int AS n FROM gis.redrive_applied_key WHERE idempotency_key LIKE 'crash-%'`,
          );
          return rows[0].n === 3;
        },
        60_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nworker log:\n${log.join("")}`);
      });
      // …and Redrive has not: its outcome transaction waits for the lock.
      const before = await db.pool.query(`SELECT status::text AS status FROM replay_item WHERE batch_id = $1`, [id]);
      expect(before.rows.every((r) => r.status === "running")).toBe(true);
      child.kill("SIGKILL");
      await exited;
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await gate.end();
    }

    const handle: WorkerHandle = startWorker({
      db,
      log: () => {},
      leaseMs: 1000,
      pollMs: 50,
      backoff: { baseMs: 20, maxMs: 200 },
    });
    try {
      await waitFor("completion after the crash", async () => (await batchStatus(db, id)) === "completed", 30_000);
    } finally {
      await handle.stop();
    }
    const { rows: items } = await db.pool.query(
      `SELECT status::text AS status, count(*)::int AS n FROM replay_item WHERE batch_id = $1 GROUP BY 1`,
      [id],
    );
    expect(items).toEqual([{ status: "deduped", n: 3 }]);
    const keys = await target.pool.query(
      `SELECT idempotency_key, count(*)::int AS n FROM gis.redrive_applied_key WHERE idempotency_key LIKE 'crash-%' GROUP BY 1 ORDER BY 1`,
    );
    expect(keys.rows).toEqual([1, 2, 3].map((n) => ({ idempotency_key: `crash-${n}`, n: 1 })));
    const features = await target.pool.query(`SELECT id, observed_at FROM gis.features WHERE id LIKE 'crash-%' ORDER BY id`);
    expect(features.rows).toEqual([1, 2, 3].map((n) => ({ id: `crash-${n}`, observed_at: new Date((EPOCH + 500 + n) * 1000) })));
    const ledger = await db.pool.query(
      `SELECT count(*)::int AS n FROM ledger_entry WHERE idempotency_key LIKE 'crash-%' AND origin = 'postgis'`,
    );
    expect(ledger.rows[0].n).toBe(3);
  }, 120_000);
});
