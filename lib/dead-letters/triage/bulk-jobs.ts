import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { appendAudit } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import { checkExpectedCount, decidePage, idCeiling, PAGE, type BulkContext } from "./bulk-action";
import { countMatching } from "../query/facets";
import { readRecordScope } from "../../auth/teams/read-scope";
import { UNSCOPED, type RecordScope } from "../../scope/record-scope";
import { ListFilterSchema, type ListFilter } from "../filters";
import type { BulkBody, BulkJob } from "../contract/bulk";

// "Select all N matching this filter" as a job: N may be 100k, and applying it inside the request held the
// request (and the analyst's browser) for minutes. The request records the job (what, who, the count confirmed
// and the highest id then — later arrivals are not part of the selection) and answers 202; the server works
// through it in pages of PAGE with the same decidePage as a synchronous bulk decision. Each page's changes and
// the job's progress (cursor, counts) commit in one transaction, so the progress polled is exactly what was
// done, and a job whose runner died (its heartbeat went stale) resumes after the last committed page.

/**
 * A runner that has not reported for this long is presumed dead; the next poll (or the housekeeping loop) resumes
 * its job. It reports at every page's commit, and a page in flight holds the job's row lock, which a claim waits
 * for: a slow page never loses its job, and a runner paused between pages past this (a saturated pool, a skewed
 * clock) only hands it over — its next page sees another owner and stops. So this can be short: a killed
 * server's job resumes seconds later, not half a minute.
 */
export const STALE_AFTER_MS = 10_000;

/** The skipped reason for records that matched when the job was created and had left the filter when it got there. */
export const LEFT_FILTER = "changed meanwhile: no longer matches the filter";

interface JobRow {
  id: string;
  status: BulkJob["status"];
  action: BulkJob["action"];
  reason: string | null;
  /** as stored (JSON): dates are strings until parsed again with ListFilterSchema */
  filter: unknown;
  matched: number;
  ceiling: string;
  cursor: string;
  processed: number;
  updated: number;
  skipped: number;
  skipped_reasons: Record<string, number>;
  warnings: Record<string, number>;
  error: string | null;
  cancel_requested: boolean;
  actor_id: string | null;
  actor_email: string | null;
  actor_role: string | null;
  request_id: string;
  locked_by: string | null;
  heartbeat_at: Date | null;
  created_at: Date;
  finished_at: Date | null;
}

const COLUMNS = `id::text AS id, status, action, reason, filter, matched, ceiling::text AS ceiling, cursor::text AS cursor, processed,
  updated, skipped, skipped_reasons, warnings, error, cancel_requested, actor_id, actor_email, actor_role, request_id, locked_by,
  heartbeat_at, created_at, finished_at`;

function toJob(r: JobRow): BulkJob {
  return {
    id: r.id,
    status: r.status,
    action: r.action,
    matched: r.matched,
    processed: r.processed,
    updated: r.updated,
    skipped: r.skipped,
    skippedReasons: r.skipped_reasons,
    warnings: r.warnings,
    cancelRequested: r.cancel_requested,
    error: r.error,
    createdAt: r.created_at.toISOString(),
    finishedAt: r.finished_at?.toISOString() ?? null,
  };
}

/** Records the job (409 when the confirmed count is not the count now). The caller starts runBulkJob. */
export async function createBulkJob(pool: pg.Pool, body: BulkBody & { filter: ListFilter }, ctx: BulkContext): Promise<BulkJob> {
  const matched = await countMatching(pool, ctx.scope, body.filter);
  checkExpectedCount(body.expectedCount, matched);
  const ceiling = await idCeiling(pool);
  const { rows } = await pool.query<JobRow>(
    `INSERT INTO bulk_job (action, reason, filter, matched, ceiling, actor_id, actor_email, actor_role, request_id, status,
       finished_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::"BulkJobStatus", $11::timestamptz, $12, $12) RETURNING ${COLUMNS}`,
    [
      body.action,
      body.reason ?? null,
      JSON.stringify(body.filter),
      matched,
      ceiling,
      ctx.actor.id,
      ctx.actor.email ?? "unknown",
      ctx.actor.role ?? "unknown",
      ctx.requestId,
      matched === 0 ? "completed" : "running",
      matched === 0 ? ctx.now : null,
      ctx.now,
    ],
  );
  return toJob(rows[0]!);
}

/** Who looks at a job: a user in teams sees only the jobs they started (another's filter reaches other records). */
export interface JobViewer {
  userId: string | null;
  scope: RecordScope;
}

const ANY_VIEWER: JobViewer = { userId: null, scope: UNSCOPED };

async function readJob(db: pg.Pool | pg.PoolClient, id: string, lock = false, viewer: JobViewer = ANY_VIEWER): Promise<JobRow> {
  const { rows } = await db.query<JobRow>(`SELECT ${COLUMNS} FROM bulk_job WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id]);
  if (!rows[0] || (!viewer.scope.all && rows[0].actor_id !== viewer.userId)) throw new AppError("not_found", `no bulk job ${id}`);
  return rows[0];
}

export async function getBulkJob(pool: pg.Pool, id: string): Promise<BulkJob> {
  return toJob(await readJob(pool, id));
}

/** Whether a running job has no live runner (never claimed, or its heartbeat is older than STALE_AFTER_MS). */
export function needsRunner(job: { status: string; lockedBy: string | null; heartbeatAt: Date | null }, now: Date): boolean {
  if (job.status !== "running") return false;
  return job.lockedBy === null || job.heartbeatAt === null || now.getTime() - job.heartbeatAt.getTime() > STALE_AFTER_MS;
}

/** The job, and whether the caller should start a runner for it (see needsRunner). */
export async function pollBulkJob(pool: pg.Pool, viewer: JobViewer, id: string, now: Date): Promise<{ job: BulkJob; resume: boolean }> {
  const r = await readJob(pool, id, false, viewer);
  return { job: toJob(r), resume: needsRunner({ status: r.status, lockedBy: r.locked_by, heartbeatAt: r.heartbeat_at }, now) };
}

/**
 * Running jobs whose runner is gone (needsRunner), oldest first. A job normally resumes when its page polls it;
 * the housekeeping loop (lib/ops/maintenance.ts) also resumes these, so a job whose server restarted
 * finishes even when nobody is watching it.
 */
export async function stalledBulkJobs(pool: pg.Pool, now: Date): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id::text AS id FROM bulk_job
     WHERE status = 'running' AND (locked_by IS NULL OR heartbeat_at IS NULL OR heartbeat_at < $1::timestamptz - $2 * interval '1 millisecond')
     ORDER BY bulk_job.id`,
    [now, STALE_AFTER_MS],
  );
  return rows.map((r) => r.id);
}

/** Asks a running job to stop after its current page; pages already committed stay decided. */
/**
 * Asks a running job to stop after its page. Its starter may, and so may whoever may stop anyone's (`anyJob`,
 * supervisors): an analyst stopping a colleague's decision half-way is not a triage action. Audited.
 */
export async function cancelBulkJob(
  pool: pg.Pool,
  id: string,
  by: { actor: Actor; scope: RecordScope; requestId: string | null; now: Date; anyJob: boolean },
): Promise<BulkJob> {
  return inTransaction(pool, async (client) => {
    const job = await readJob(client, id, true, { userId: by.actor.id, scope: by.scope });
    if (job.status !== "running") {
      throw new AppError("conflict", `bulk job ${id} is ${job.status}: nothing to cancel`, { details: { job: toJob(job) } });
    }
    if (!by.anyJob && job.actor_id !== by.actor.id) {
      throw new AppError(
        "forbidden",
        `bulk job ${id} was started by ${job.actor_email ?? "someone else"}: only they or a supervisor can stop it`,
      );
    }
    const { rows } = await client.query<JobRow>(
      `UPDATE bulk_job SET cancel_requested = true, updated_at = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, by.now],
    );
    await appendAudit(
      client,
      [
        {
          ...auditActor(by.actor, by.requestId),
          action: "bulk_job.cancel",
          targetType: "bulk_job",
          targetId: id,
          before: { status: job.status },
          after: { cancelRequested: true },
        },
      ],
      by.now,
    );
    return toJob(rows[0] as JobRow);
  });
}

export interface RunOptions {
  /** the clock, read once per page */
  now: () => Date;
  /** identifies this runner in locked_by; a fresh one per run by default */
  runner?: string;
  signal?: AbortSignal;
  /** called after each committed page (tests use it to stop or crash a runner part-way) */
  onPage?: (job: BulkJob) => void | Promise<void>;
}

/**
 * Works through a job page by page until it completes, is cancelled, or another runner holds it. Each page's
 * transaction first re-reads the job under a row lock and checks this runner still owns it, so two runners
 * (a stale one that woke up, and the one that resumed its job) never both apply a page.
 */
export async function runBulkJob(pool: pg.Pool, id: string, opts: RunOptions): Promise<BulkJob> {
  const runner = opts.runner ?? `bulk-${randomUUID()}`;
  const claimAt = opts.now();
  const claimed = await pool.query(
    `UPDATE bulk_job SET locked_by = $2, heartbeat_at = $3, updated_at = $3
     WHERE id = $1 AND status = 'running' AND (locked_by IS NULL OR locked_by = $2 OR heartbeat_at IS NULL OR heartbeat_at < $3::timestamptz - $4 * interval '1 millisecond')`,
    [id, runner, claimAt, STALE_AFTER_MS],
  );
  if (claimed.rowCount === 0) return getBulkJob(pool, id);
  try {
    for (;;) {
      if (opts.signal?.aborted) return getBulkJob(pool, id);
      const now = opts.now();
      const { job, done } = await inTransaction(pool, async (client) => {
        const r = await readJob(client, id, true);
        if (r.status !== "running" || r.locked_by !== runner) return { job: r, done: true };
        if (r.cancel_requested) {
          const { rows } = await client.query<JobRow>(
            `UPDATE bulk_job SET status = 'cancelled', finished_at = $2, updated_at = $2, heartbeat_at = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
            [id, now],
          );
          return { job: rows[0]!, done: true };
        }
        // The starter's teams as they are now: a starter removed from a team stops changing its records mid-job.
        // A job without a starter (a system job) runs company-wide.
        const scope = r.actor_id === null ? UNSCOPED : await readRecordScope(client, r.actor_id);
        const ctx: BulkContext = {
          actor: { id: r.actor_id, email: r.actor_email, role: r.actor_role },
          requestId: r.request_id,
          now,
          scope,
        };
        const page = await decidePage(
          client,
          { action: r.action, reason: r.reason, filter: ListFilterSchema.parse(r.filter), ids: null },
          r.cursor,
          r.ceiling,
          ctx,
        );
        const finished = page.rows.length < PAGE;
        // Records matched at creation that no longer match (someone approved or edited one meanwhile) are never
        // walked: say so at the end, so "approved 49 of 50" does not leave one unexplained.
        const gone = finished ? r.matched - (r.processed + page.rows.length) : 0;
        if (gone > 0) page.skippedReasons[LEFT_FILTER] = (page.skippedReasons[LEFT_FILTER] ?? 0) + gone;
        const skipped = Object.values(page.skippedReasons).reduce((a, b) => a + b, 0);
        const { rows } = await client.query<JobRow>(
          `UPDATE bulk_job SET cursor = $2, processed = processed + $3 + $10, updated = updated + $4, skipped = skipped + $5,
             skipped_reasons = (SELECT coalesce(jsonb_object_agg(k, v), '{}'::jsonb) FROM (
               SELECT k, sum(v::int) AS v FROM (SELECT * FROM jsonb_each_text(skipped_reasons) UNION ALL SELECT * FROM jsonb_each_text($6::jsonb)) e(k, v)
               GROUP BY k) s),
             warnings = (SELECT coalesce(jsonb_object_agg(k, v), '{}'::jsonb) FROM (
               SELECT k, sum(v::int) AS v FROM (SELECT * FROM jsonb_each_text(warnings) UNION ALL SELECT * FROM jsonb_each_text($9::jsonb)) e(k, v)
               GROUP BY k) w),
             status = CASE WHEN $7::boolean THEN 'completed'::"BulkJobStatus" ELSE status END,
             finished_at = CASE WHEN $7::boolean THEN $8::timestamptz ELSE NULL END, heartbeat_at = $8, updated_at = $8
           WHERE id = $1 RETURNING ${COLUMNS}`,
          [
            id,
            page.rows.at(-1)?.id ?? r.cursor,
            page.rows.length,
            page.updated,
            skipped,
            JSON.stringify(page.skippedReasons),
            finished,
            now,
            JSON.stringify(page.warnings),
            Math.max(0, gone),
          ],
        );
        return { job: rows[0]!, done: finished };
      });
      await opts.onPage?.(toJob(job));
      if (done) return toJob(job);
    }
  } catch (err) {
    // The page in flight rolled back; record why the job stopped (internals go to the log, not to the API).
    console.error(`[bulk-job ${id}]`, err);
    await pool
      .query(
        `UPDATE bulk_job SET status = 'failed', error = $3, finished_at = $2, updated_at = $2 WHERE id = $1 AND status = 'running' AND locked_by = $4`,
        [id, opts.now(), "the job stopped on an internal error; the pages before it are applied", runner],
      )
      .catch(() => {});
    throw err;
  }
}
