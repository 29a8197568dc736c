import type { Db } from "../../../lib/db/client";
import { UNSCOPED } from "../../../lib/scope/record-scope";
import { addSource as add, pullNow } from "../../../lib/sources/pull-now";
import { CreateSourceBody, type PullCounts } from "../../../lib/sources/source-schemas";
import { startWorker, type WorkerHandle } from "../../../lib/replay/engine/worker";
import { approve, batchStatus, itemCounts, runningBatch, waitFor, type TestUsers } from "../../replay/fixtures";
import { makeUser, TEST_CTX } from "../auth-helpers";

// The whole path for a broker source, as users drive it: an admin adds the source, a pull stores its dead
// letters, they are approved, and a supervisor's batch with the origin sink puts them back where they came from.

export async function supervisors(db: Db): Promise<TestUsers> {
  const [a, b] = [await makeUser(db, "supervisor"), await makeUser(db, "supervisor")];
  return {
    creator: { scope: UNSCOPED, userId: a.id, email: a.email, role: a.role },
    approver: { scope: UNSCOPED, userId: b.id, email: b.email, role: b.role },
  };
}

export async function addSource(db: Db, body: unknown): Promise<string> {
  const created = await add(db.pool, CreateSourceBody.parse(body), TEST_CTX());
  return created.name;
}

export async function pull(db: Db, name: string, max?: number): Promise<PullCounts> {
  return pullNow(db.pool, name, {
    ...(max !== undefined ? { max } : {}),
    actor: TEST_CTX().actor,
    requestId: "test",
    clock: () => new Date(),
  });
}

export interface PulledRow {
  id: string;
  idempotency_key: string | null;
  status: string;
  origin_message_id: string | null;
  origin: Record<string, unknown> & { destination: Record<string, unknown>; headers: Record<string, unknown>; deathReason: string | null };
  failure_count: number;
}

export async function pulledRecords(db: Db, source: string): Promise<PulledRow[]> {
  const { rows } = await db.pool.query<PulledRow>(
    `SELECT id::text AS id, idempotency_key, status::text AS status, origin_message_id, origin, failure_count
     FROM dead_letter WHERE origin_source = $1 ORDER BY id`,
    [source],
  );
  return rows;
}

/** Approves the records, replays them to their origin at `rate`/s with a worker, and returns the item outcomes. */
export async function replayToOrigin(db: Db, users: TestUsers, ids: string[], rate = 200): Promise<Record<string, number>> {
  await approve(db, ids);
  const batchId = await runningBatch(db, users, { ids, sink: { type: "origin" }, ratePerSecond: rate, pageSize: 50 });
  const worker: WorkerHandle = startWorker({
    db,
    log: () => {},
    leaseMs: 3000,
    pollMs: 50,
    backoff: { baseMs: 20, maxMs: 200 },
  });
  try {
    await waitFor("the batch to finish", async () => ["completed", "failed", "cancelled"].includes(await batchStatus(db, batchId)), 60_000);
  } finally {
    await worker.stop();
  }
  return itemCounts(db.pool, batchId);
}
