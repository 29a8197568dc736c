import "server-only";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type pg from "pg";

// Who runs a rule's dry run or apply (rule-jobs.ts runRuleJob), as bulk jobs do (bulk-jobs.ts runBulkJob). A runner
// is one call of runRuleJob, under a name of its own: two runners in one process (its housekeeping resuming a job
// its own runner is still on) are two runners, not one that may hold the job twice. A runner claims the job, and
// each page commits under the job row's lock, taken first and checked to be still this runner's: a claim waits for
// the page in flight (then finds a fresh heartbeat), and a runner taken over between pages finds another's name at
// its next page and stops, that page rolled back. A runner told to stop releases the job between pages.

/**
 * A runner that has not saved a page for this long is presumed dead; any server's housekeeping (or the job's poll)
 * resumes its job. A page in flight holds the job row, so a slow page (a long SQL range, records locked by others)
 * is waited for, not taken over.
 */
export const RULE_JOB_STALE_AFTER_MS = 10_000;

/** Thrown inside a page's transaction when another runner holds the job (or it has ended): the page rolls back. */
export class JobTakenOver extends Error {}

/** A name for one run of a job: host and process for the reader of locked_by, and a fresh id. */
export const newRunner = (): string => `${hostname()}:${process.pid}:rule-${randomUUID()}`;

/** Whether a running job has no live runner: none ever saved a page (or it released the job), or it went stale. */
export function ruleJobStalled(job: { status: string; heartbeatAt: Date | null }, now: Date): boolean {
  return job.status === "running" && (job.heartbeatAt === null || now.getTime() - job.heartbeatAt.getTime() > RULE_JOB_STALE_AFTER_MS);
}

/**
 * Takes the job for `runner` when nobody holds it or its holder went stale; false when a live runner holds it (or
 * it has ended). A page in flight holds the row: the claim waits for it, then sees its heartbeat.
 */
export async function claimJob(pool: pg.Pool, jobId: string, runner: string, now: Date): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE rule_job SET locked_by = $2, heartbeat_at = $3
     WHERE id = $1 AND status = 'running'
       AND (locked_by IS NULL OR locked_by = $2 OR heartbeat_at IS NULL OR heartbeat_at < $3::timestamptz - $4 * interval '1 millisecond')`,
    [jobId, runner, now, RULE_JOB_STALE_AFTER_MS],
  );
  return rowCount === 1;
}

/** A page's first statement: the job row locked for the page's transaction, still `runner`'s (else JobTakenOver). */
export async function holdJob(client: pg.PoolClient, jobId: string, runner: string): Promise<void> {
  const { rowCount } = await client.query(`SELECT 1 FROM rule_job WHERE id = $1 AND status = 'running' AND locked_by = $2 FOR UPDATE`, [
    jobId,
    runner,
  ]);
  if (rowCount !== 1) throw new JobTakenOver(`rule job ${jobId} is another runner's now`);
}

/** Hands a running job back (its runner was told to stop): it is stalled at once, for the next runner to resume. */
export async function releaseJob(pool: pg.Pool, jobId: string, runner: string): Promise<void> {
  await pool.query(`UPDATE rule_job SET locked_by = NULL, heartbeat_at = NULL WHERE id = $1 AND locked_by = $2 AND status = 'running'`, [
    jobId,
    runner,
  ]);
}

/** Running jobs without a live runner (ruleJobStalled): the housekeeping loop resumes them (lib/ops/maintenance.ts). */
export async function stalledRuleJobs(pool: pg.Pool, now: Date): Promise<{ ruleId: string; jobId: string }[]> {
  const { rows } = await pool.query<{ ruleId: string; jobId: string }>(
    `SELECT rule_id::text AS "ruleId", id::text AS "jobId" FROM rule_job
     WHERE status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < $1::timestamptz - $2 * interval '1 millisecond')
     ORDER BY id`,
    [now, RULE_JOB_STALE_AFTER_MS],
  );
  return rows;
}
