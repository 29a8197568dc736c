import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { TAP_FAILS_SCHEMA } from "../../lib/dead-letters/triage/approve-warning";
import { PAGE } from "../../lib/dead-letters/triage/bulk-action";
import {
  cancelBulkJob,
  createBulkJob,
  getBulkJob,
  LEFT_FILTER,
  needsRunner,
  pollBulkJob,
  runBulkJob,
  STALE_AFTER_MS,
} from "../../lib/dead-letters/triage/bulk-jobs";
import { maintenanceRound, resumedJobsSettled, startMaintenance } from "../../lib/ops/maintenance";
import type { BulkContext } from "../../lib/dead-letters/triage/bulk-action";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// "Select all N matching this filter" as a job against a real database: more records than one page, progress
// committed with each page, the count guard, records arriving later left out, cancellation between pages, and
// a job whose runner died resumed from its last committed page without deciding anything twice.

setTestAuthEnv();

const N = PAGE * 2 + 137; // three pages, the last one partial
let db: Db;
let ctx: BulkContext;
let clock = new Date("2026-11-30T01:00:00Z");
const now = () => clock;

async function insert(n: number, source: string, status = "pending"): Promise<void> {
  await db.pool.query(
    `INSERT INTO dead_letter (kind, source, observed_at, first_seen_at, first_failure_reason, reason, reason_group, failure_class, status, payload)
     SELECT 'afc', $2, $3::timestamptz - g * interval '1 second', $3, 'timeout', 'timeout', 'timeout', 'transient', $4::"DeadLetterStatus", '{}'::jsonb
     FROM generate_series(1, $1) g`,
    [n, source, clock, status],
  );
}

const statuses = async (source: string) =>
  Object.fromEntries(
    (
      await db.pool.query<{ status: string; n: number }>(
        "SELECT status::text, count(*)::int AS n FROM dead_letter WHERE source = $1 GROUP BY 1",
        [source],
      )
    ).rows.map((r) => [r.status, r.n]),
  );

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "failure_attempt", "user", "bulk_job"] });
  const a = await makeUser(db, "analyst");
  ctx = { scope: UNSCOPED, actor: { id: a.id, email: a.email, role: "analyst" }, requestId: "req-bulk", now: clock };
});

beforeEach(async () => {
  await db.pool.query("TRUNCATE dead_letter, failure_attempt, bulk_job RESTART IDENTITY CASCADE");
  clock = new Date("2026-11-30T01:00:00Z");
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("bulk jobs", () => {
  it("applies a filter in pages, reporting committed progress after each, and audits every change", async () => {
    await insert(N - 5, "gates");
    await insert(5, "gates", "quarantined"); // approve refuses these: skipped and counted
    await insert(40, "other");
    const job = await createBulkJob(
      db.pool,
      { action: "approve", filter: { source: ["gates"] }, expectedCount: N },
      { ...ctx, requestId: "req-pages" },
    );
    expect(job).toMatchObject({ status: "running", matched: N, processed: 0, updated: 0 });

    const seen: { processed: number; approved: number }[] = [];
    const done = await runBulkJob(db.pool, job.id, {
      now,
      onPage: async (j) => {
        // What the job reports is what the table holds: progress and changes commit together.
        seen.push({ processed: j.processed, approved: (await statuses("gates")).approved ?? 0 });
        expect(j.updated).toBe((await statuses("gates")).approved ?? 0);
      },
    });
    expect(seen.map((s) => s.processed)).toEqual([PAGE, PAGE * 2, N]);
    expect(done).toMatchObject({ status: "completed", matched: N, processed: N, updated: N - 5, skipped: 5 });
    expect(Object.values(done.skippedReasons)).toEqual([5]);
    // These taps ({} payloads) fail their schema: approved, and the job says how many the replay would drop.
    expect(done.warnings).toEqual({ [TAP_FAILS_SCHEMA]: N - 5 });
    expect(done.finishedAt).toBe(clock.toISOString());
    expect(await statuses("gates")).toEqual({ approved: N - 5, quarantined: 5 });
    expect(await statuses("other")).toEqual({ pending: 40 });
    const audit = await db.pool.query<{ n: number; actor: string; req: string }>(
      "SELECT count(*)::int AS n, min(actor_email) AS actor, min(request_id) AS req FROM audit_event WHERE action = 'dead_letter.approved' AND request_id = 'req-pages'",
    );
    // Attributed to the analyst who confirmed it and to the request that created the job.
    expect(audit.rows[0]).toEqual({ n: N - 5, actor: ctx.actor.email, req: "req-pages" });
  });

  it("refuses a count that changed since it was confirmed, and leaves out records that arrive later", async () => {
    await insert(10, "gates");
    await expect(createBulkJob(db.pool, { action: "reopen", filter: { source: ["gates"] }, expectedCount: 9 }, ctx)).rejects.toMatchObject({
      code: "conflict",
      details: { matched: 10 },
    });
    const job = await createBulkJob(
      db.pool,
      { action: "quarantine", reason: "bad device", filter: { source: ["gates"] }, expectedCount: 10 },
      ctx,
    );
    await insert(3, "gates"); // ingested after the user confirmed 10
    const done = await runBulkJob(db.pool, job.id, { now });
    expect(done).toMatchObject({ status: "completed", processed: 10, updated: 10 });
    expect(await statuses("gates")).toEqual({ quarantined: 10, pending: 3 });
  });

  it("says how many records left the filter before the job reached them", async () => {
    await insert(10, "gates");
    const job = await createBulkJob(
      db.pool,
      { action: "approve", filter: { source: ["gates"], status: ["pending"] }, expectedCount: 10 },
      ctx,
    );
    await db.pool.query("UPDATE dead_letter SET status = 'quarantined' WHERE id IN (SELECT id FROM dead_letter ORDER BY id LIMIT 2)"); // someone else, meanwhile
    const done = await runBulkJob(db.pool, job.id, { now });
    expect(done).toMatchObject({
      status: "completed",
      matched: 10,
      processed: 10,
      updated: 8,
      skipped: 2,
      skippedReasons: { [LEFT_FILTER]: 2 },
    });
  });

  it("stops between pages when cancelled; what was applied stays applied", async () => {
    await insert(N, "gates");
    const job = await createBulkJob(db.pool, { action: "approve", filter: { source: ["gates"] } }, ctx);
    const done = await runBulkJob(db.pool, job.id, {
      now,
      onPage: async (j) => {
        if (j.status !== "running" || j.processed !== PAGE) return;
        // another analyst may not stop it; its starter may (audited)
        const other = { id: "someone-else", email: "other@test.local", role: "analyst" };
        await expect(
          cancelBulkJob(db.pool, job.id, { actor: other, scope: UNSCOPED, requestId: "req-x", now: clock, anyJob: false }),
        ).rejects.toMatchObject({ code: "forbidden" });
        await cancelBulkJob(db.pool, job.id, { actor: ctx.actor, scope: UNSCOPED, requestId: "req-cancel", now: clock, anyJob: false });
      },
    });
    expect(done).toMatchObject({ status: "cancelled", processed: PAGE, updated: PAGE, cancelRequested: true });
    expect(await statuses("gates")).toEqual({ approved: PAGE, pending: N - PAGE });
    await expect(
      cancelBulkJob(db.pool, job.id, { actor: ctx.actor, scope: UNSCOPED, requestId: null, now: clock, anyJob: true }),
    ).rejects.toMatchObject({
      code: "conflict",
    });
    const audit = await db.pool.query(
      "SELECT action, actor_email, request_id FROM audit_event WHERE target_type = 'bulk_job' AND target_id = $1",
      [job.id],
    );
    expect(audit.rows).toEqual([{ action: "bulk_job.cancel", actor_email: ctx.actor.email, request_id: "req-cancel" }]);
  });

  it("resumes a job whose runner died after its last committed page, and a live runner is not displaced", async () => {
    await insert(N, "gates");
    const job = await createBulkJob(db.pool, { action: "approve", filter: { source: ["gates"] } }, { ...ctx, requestId: "req-resume" });
    // The first runner commits one page, then its process dies (the error stands in for the crash).
    const crash = new Error("process killed");
    await expect(
      runBulkJob(db.pool, job.id, {
        now,
        runner: "dead",
        onPage: () => {
          throw crash;
        },
      }),
    ).rejects.toBe(crash);
    // A crash after the commit: the page stays applied. (runBulkJob marks a job failed on an error it sees; a
    // real crash sees none, so put the row back the way a killed process leaves it: running, locked, heartbeat old.)
    await db.pool.query("UPDATE bulk_job SET status = 'running', error = NULL, finished_at = NULL WHERE id = $1", [job.id]);
    expect(await getBulkJob(db.pool, job.id)).toMatchObject({ status: "running", processed: PAGE });

    // Within the heartbeat window the runner counts as alive: a poll does not resume, a second runner does nothing.
    clock = new Date(clock.getTime() + STALE_AFTER_MS - 1_000);
    expect((await pollBulkJob(db.pool, { userId: null, scope: UNSCOPED }, job.id, clock)).resume).toBe(false);
    expect(await runBulkJob(db.pool, job.id, { now, runner: "eager" })).toMatchObject({ status: "running", processed: PAGE });

    clock = new Date(clock.getTime() + 2_000);
    expect((await pollBulkJob(db.pool, { userId: null, scope: UNSCOPED }, job.id, clock)).resume).toBe(true);
    const done = await runBulkJob(db.pool, job.id, { now, runner: "rescuer" });
    expect(done).toMatchObject({ status: "completed", processed: N, updated: N });
    const audit = await db.pool.query<{ n: number; distinct: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT target_id)::int AS distinct FROM audit_event WHERE action = 'dead_letter.approved' AND request_id = 'req-resume'",
    );
    expect(audit.rows[0]).toEqual({ n: N, distinct: N }); // nothing decided twice
  });

  it("is resumed by the housekeeping loop when nobody polls it, and only once its runner is stale", async () => {
    await insert(N, "gates");
    const job = await createBulkJob(db.pool, { action: "approve", filter: { source: ["gates"] } }, { ...ctx, requestId: "req-orphan" });
    // The request that created the job died before its runner started: running, never claimed.
    const round = () => maintenanceRound({ pool: db.pool, retentionDays: 90, now, log: () => {} });
    expect((await round()).resumed).toEqual([job.id]);
    await resumedJobsSettled();
    expect(await getBulkJob(db.pool, job.id)).toMatchObject({ status: "completed", processed: N, updated: N });
    expect((await round()).resumed).toEqual([]); // finished jobs are left alone

    // A job with a live runner (fresh heartbeat) is not taken over.
    await insert(10, "late");
    const live = await createBulkJob(db.pool, { action: "approve", filter: { source: ["late"] } }, { ...ctx, requestId: "req-live" });
    await db.pool.query("UPDATE bulk_job SET locked_by = 'alive', heartbeat_at = $2 WHERE id = $1", [live.id, clock]);
    expect((await round()).resumed).toEqual([]);
    clock = new Date(clock.getTime() + STALE_AFTER_MS + 1_000);
    expect((await round()).resumed).toEqual([live.id]);
    await resumedJobsSettled();
    expect(await getBulkJob(db.pool, live.id)).toMatchObject({ status: "completed", processed: 10 });
  });

  it("is resumed between the housekeeping loop's rounds, within its bulk check, once its runner is stale", async () => {
    await insert(N, "gates");
    const job = await createBulkJob(db.pool, { action: "approve", filter: { source: ["gates"] } }, { ...ctx, requestId: "req-check" });
    await db.pool.query("UPDATE bulk_job SET locked_by = 'killed', heartbeat_at = $2 WHERE id = $1", [job.id, clock]);
    const stop = new AbortController();
    // The first round runs at once, while the runner still counts as alive; the next would be an hour later.
    const loop = startMaintenance({
      pool: db.pool,
      signal: stop.signal,
      now,
      retentionDays: 90,
      intervalMs: 3_600_000,
      bulkCheckMs: 50,
      log: () => {},
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(await getBulkJob(db.pool, job.id)).toMatchObject({ status: "running", processed: 0 });
      clock = new Date(clock.getTime() + STALE_AFTER_MS + 1);
      await expect.poll(async () => (await getBulkJob(db.pool, job.id)).status, { timeout: 10_000 }).toBe("completed");
      expect(await getBulkJob(db.pool, job.id)).toMatchObject({ processed: N, updated: N });
    } finally {
      stop.abort();
      await loop.done;
    }
  });

  it("knows when a job needs a runner", () => {
    const at = new Date("2026-11-30T01:00:00Z");
    expect(needsRunner({ status: "running", lockedBy: null, heartbeatAt: null }, at)).toBe(true);
    expect(needsRunner({ status: "running", lockedBy: "r", heartbeatAt: new Date(at.getTime() - STALE_AFTER_MS + 1) }, at)).toBe(false);
    expect(needsRunner({ status: "running", lockedBy: "r", heartbeatAt: new Date(at.getTime() - STALE_AFTER_MS - 1) }, at)).toBe(true);
    expect(needsRunner({ status: "completed", lockedBy: null, heartbeatAt: null }, at)).toBe(false);
  });
});
