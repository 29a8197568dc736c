import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { stalledRuleJobs } from "../../lib/dead-letters/rules/rule-job-claim";
import { createRuleJob, getRuleJob, runRuleJob } from "../../lib/dead-letters/rules/rule-jobs";
import { resumedJobsSettled, resumeStalledRuleJobs } from "../../lib/ops/maintenance";
import { approveRule, createRule, type RuleContext } from "../../lib/rules/rules";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { STANDING_REPLAY } from "../../lib/replay/batch/standing-rules";
import { SQUARE } from "../support/rule-shapes";
import { ingest } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Who runs a rule's dry run or apply, and when it stops: one runner at a time per job, even two in one process (a
// resume by this process's housekeeping while its own page waits on record locks); a runner told to stop releases
// the job between pages for another to finish at once; and a job whose runner died resumes when its page polls it.

/** The work after() hands to Next, run here as soon as a route gives it. */
const background: Promise<unknown>[] = [];
vi.mock("next/server", async (importOriginal) => ({
  ...(await importOriginal<typeof import("next/server")>()),
  after: (task: Promise<unknown> | (() => unknown)) => {
    background.push(Promise.resolve(typeof task === "function" ? task() : task));
  },
}));

const { GET: getJobRoute } = await import("../../app/api/rules/[id]/jobs/[jobId]/route");

setTestAuthEnv();

let n = 0;
const envelope = (source: string) =>
  JSON.stringify({
    kind: "spatial",
    source,
    idempotency_key: `runners-${++n}`,
    observed_at: "2026-12-01T10:00:00Z",
    feature: { type: "Feature", id: `f-${n}`, properties: {}, geometry: SQUARE },
    dead_letter_reason: "TopologyException: Self-intersection",
  });

let db: Db;
let a: RuleContext;
let b: RuleContext;
let token: string;

const ctx = (u: { id: string; email: string }): RuleContext => ({
  standing: STANDING_REPLAY,
  actor: { id: u.id, email: u.email, role: "supervisor" },
  scope: UNSCOPED,
  role: "supervisor",
  requestId: "t",
  now: new Date(),
});

beforeAll(async () => {
  db = await testDb();
  const ann = await makeUser(db, "supervisor", { email: "ann@runners.local" });
  a = ctx(ann);
  b = ctx(await makeUser(db, "supervisor", { email: "bob@runners.local" }));
  token = await makeToken(db, ann.id);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

/**
 * `first` records of a source, then `second` more whose ids lie 300k further (past a dry run's SQL range and the
 * walk's id ranges): a job over them takes two pages. Then an active rule approving the source's records.
 */
async function ruleOver(source: string, first: number, second = 0): Promise<{ ruleId: string; ids: string[] }> {
  const ids = await ingest(
    db,
    Array.from({ length: first }, () => envelope(source)),
  );
  if (second > 0) {
    await db.pool.query(`SELECT setval(pg_get_serial_sequence('dead_letter', 'id'), (SELECT max(id) FROM dead_letter) + 300000)`);
    ids.push(
      ...(await ingest(
        db,
        Array.from({ length: second }, () => envelope(source)),
      )),
    );
  }
  const rule = await createRule(db.pool, { name: `approve-${source}`, match: { source }, action: { type: "approve" } }, a);
  await approveRule(db.pool, rule.id, 1, b);
  return { ruleId: rule.id, ids };
}

/** What the rule's version counted in rule_match_stat, and the audit events of the records it decided. */
async function stats(ruleId: string, ids: string[]): Promise<{ matched: number; decided: number; audited: number }> {
  const { rows } = await db.pool.query<{ matched: number; decided: number }>(
    `SELECT coalesce(sum(matched), 0)::int AS matched, coalesce(sum(decided), 0)::int AS decided FROM rule_match_stat WHERE rule_id = $1`,
    [ruleId],
  );
  const { rows: audit } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM audit_event WHERE action = 'dead_letter.approved' AND target_id = ANY($1::text[])`,
    [ids],
  );
  return { ...rows[0]!, audited: audit[0]!.n };
}

/** Waits until `count` sessions of this database wait on a lock. */
async function lockWaiters(count: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0]!.n >= count) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${count} sessions never waited on a lock`);
}

/** Holds a record's row lock (an analyst's decision in flight) until release(). */
async function holdRecord(id: string): Promise<{ release: () => Promise<void> }> {
  const client = await db.pool.connect();
  await client.query("BEGIN");
  await client.query("SELECT id FROM dead_letter WHERE id = $1 FOR UPDATE", [id]);
  let held = true;
  return {
    release: async () => {
      if (!held) return;
      held = false;
      await client.query("COMMIT");
      client.release();
    },
  };
}

describe("a rule job's runners", () => {
  it("a page waiting on record locks is not taken over by this process's own housekeeping: decided and counted once", async () => {
    const { ruleId, ids } = await ruleOver("runners-slow-page", 3, 2);
    const job = await createRuleJob(db.pool, ruleId, { type: "apply", version: 1 }, b);
    let t = Date.now();
    const now = () => new Date(t);
    const held = await holdRecord(ids[0]!);
    try {
      const first = runRuleJob(db.pool, ruleId, job.id, { now });
      await lockWaiters(1);
      // The first page has waited past the stall limit: this process's housekeeping finds the job stalled.
      t += 60_000;
      expect(await resumeStalledRuleJobs({ pool: db.pool, now }, now(), () => {})).toContain(job.id);
      await lockWaiters(2);
      await held.release();
      await first;
      await resumedJobsSettled();
    } finally {
      await held.release();
    }
    expect(await getRuleJob(db.pool, ruleId, job.id, UNSCOPED)).toMatchObject({
      status: "completed",
      processed: 5,
      decided: 5,
      skipped: 0,
      skippedReasons: {},
    });
    expect(await stats(ruleId, ids)).toEqual({ matched: 5, decided: 5, audited: 5 });
  });

  it("a runner whose job another took over between pages writes nothing more", async () => {
    const { ruleId, ids } = await ruleOver("runners-taken-over", 2, 2);
    const job = await createRuleJob(db.pool, ruleId, { type: "apply", version: 1 }, b);
    const loser = await runRuleJob(db.pool, ruleId, job.id, {
      now: () => new Date(),
      onPage: async () => {
        await db.pool.query(`UPDATE rule_job SET locked_by = 'other-host:1:live', heartbeat_at = now() WHERE id = $1`, [job.id]);
      },
    });
    expect(loser).toMatchObject({ status: "running", processed: 2, decided: 2 });
    expect(await stats(ruleId, ids)).toEqual({ matched: 2, decided: 2, audited: 2 });
    const { rows } = await db.pool.query<{ status: string }>(`SELECT status FROM dead_letter WHERE id = ANY($1::bigint[]) ORDER BY id`, [
      ids,
    ]);
    expect(rows.map((r) => r.status)).toEqual(["approved", "approved", "pending", "pending"]);
  });

  it("a dry run told to stop returns after its page and releases the job: another runner finishes it at once", async () => {
    const { ruleId } = await ruleOver("runners-abort-dry", 2, 3);
    const spec = { type: "dry_run" as const, match: { source: "runners-abort-dry" }, action: { type: "approve" as const }, version: 1 };
    const whole = await runRuleJob(db.pool, ruleId, (await createRuleJob(db.pool, ruleId, spec, b)).id, { now: () => new Date() });
    expect(whole).toMatchObject({ status: "completed", processed: 5, decided: 5 });
    const job = await createRuleJob(db.pool, ruleId, spec, b);
    const stop = new AbortController();
    // Stopped after the first range holding any of its records (the ranges before it, of other tests' ids, hold none).
    const stopped = await runRuleJob(db.pool, ruleId, job.id, {
      now: () => new Date(),
      signal: stop.signal,
      onPage: (j) => {
        if (j.processed > 0) stop.abort();
      },
    });
    expect(stopped).toMatchObject({ status: "running", processed: 2, decided: 2 });
    // Released, not left to go stale: any server's housekeeping (or the page's poll) resumes it now.
    expect((await stalledRuleJobs(db.pool, new Date())).map((j) => j.jobId)).toContain(job.id);
    const done = await runRuleJob(db.pool, ruleId, job.id, { now: () => new Date() });
    expect(done).toMatchObject({ status: "completed", total: whole.total, processed: 5, decided: 5, skipped: 0 });
    expect(done.samples.decided).toEqual(whole.samples.decided);
  });

  it("a worker stopping mid-apply ends its resumed job between pages; the job then finishes with the right counts", async () => {
    const { ruleId, ids } = await ruleOver("runners-abort-apply", 2, 2);
    const job = await createRuleJob(db.pool, ruleId, { type: "apply", version: 1 }, b);
    // Its starter died: this worker's housekeeping resumes it, and is stopped while the first page waits on a lock.
    await db.pool.query(`UPDATE rule_job SET heartbeat_at = now() - interval '1 minute' WHERE id = $1`, [job.id]);
    const held = await holdRecord(ids[0]!);
    const stop = new AbortController();
    try {
      expect(await resumeStalledRuleJobs({ pool: db.pool, signal: stop.signal }, new Date(), () => {})).toContain(job.id);
      await lockWaiters(1);
      stop.abort();
      await held.release();
      await resumedJobsSettled();
    } finally {
      await held.release();
    }
    expect(await getRuleJob(db.pool, ruleId, job.id, UNSCOPED)).toMatchObject({ status: "running", processed: 2, decided: 2 });
    expect(await resumeStalledRuleJobs({ pool: db.pool }, new Date(), () => {})).toContain(job.id);
    await resumedJobsSettled();
    expect(await getRuleJob(db.pool, ruleId, job.id, UNSCOPED)).toMatchObject({
      status: "completed",
      processed: 4,
      decided: 4,
      skipped: 0,
    });
    expect(await stats(ruleId, ids)).toEqual({ matched: 4, decided: 4, audited: 4 });
  });

  it("GET /api/rules/{id}/jobs/{jobId} resumes a job whose runner died, and leaves a live runner's alone", async () => {
    const { ruleId, ids } = await ruleOver("runners-poll", 3);
    const job = await createRuleJob(db.pool, ruleId, { type: "apply", version: 1 }, b);
    const poll = async () => {
      const res = await getJobRoute(
        new Request(`http://localhost/api/rules/${ruleId}/jobs/${job.id}`, { headers: { authorization: `Bearer ${token}` } }),
        { params: Promise.resolve({ id: ruleId, jobId: job.id }) },
      );
      expect(res.status).toBe(200);
      return res.json() as Promise<{ status: string; processed: number }>;
    };
    await db.pool.query(`UPDATE rule_job SET locked_by = 'other-host:1:live', heartbeat_at = now() WHERE id = $1`, [job.id]);
    expect(await poll()).toMatchObject({ status: "running", processed: 0 });
    expect(background).toHaveLength(0);
    // Its server was killed: the heartbeat goes stale, and the next poll resumes it.
    await db.pool.query(`UPDATE rule_job SET heartbeat_at = now() - interval '1 minute' WHERE id = $1`, [job.id]);
    expect(await poll()).toMatchObject({ status: "running" });
    expect(background).toHaveLength(1);
    await Promise.all(background);
    expect(await poll()).toMatchObject({ status: "completed", processed: 3 });
    expect(await stats(ruleId, ids)).toEqual({ matched: 3, decided: 3, audited: 3 });
  });
});
