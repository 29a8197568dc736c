import "server-only";
import type pg from "pg";
import { runBulkJob, STALE_AFTER_MS, stalledBulkJobs } from "../dead-letters/triage/bulk-jobs";
import { runRuleJob } from "../dead-letters/rules/rule-jobs";
import { stalledRuleJobs } from "../dead-letters/rules/rule-job-claim";
import { notReplayableToOrigin } from "../replay/sinks/origin/origin-destinations";
import { evaluateAlerts } from "./alerts/evaluate";
import { evaluateRuleAlerts } from "../rules/rule-alerts";
import { deliverFired, deliverResolved, type Poster } from "./alerts/webhook";
import { runRetention, type RetentionResult } from "./retention";
import { runArchive, type ArchiveResult } from "./archive";
import { archiveHorizonDays } from "./archive-setting";
import { pruneRateLimits } from "../auth/rate-limit-store";
import { pruneAnsweredPulls } from "../sources/pull-requests";

// The housekeeping loop, started next to the replay worker: every interval (default a minute) it strips
// payloads past retention, moves settled records past the archive horizon (an admin's setting, off by default) to
// the archive, evaluates the alert rules (then delivers their webhooks), resumes bulk and rule jobs whose
// runner died (also between rounds, every few seconds) and forgets the sign-in limiter's ended windows. Any number of processes may run it: retention claims rows with SKIP LOCKED, alert evaluation
// takes a try-lock, a bulk or rule job is claimed by one runner at a time. A failing round is logged and the next one
// runs as usual; aborting `signal` ends the loop after the current round (and stops resumed jobs between pages).

export interface MaintenanceOptions {
  pool: pg.Pool;
  signal: AbortSignal;
  now?: () => Date;
  intervalMs?: number;
  retentionDays: number;
  webhookUrl?: string | null;
  post?: Poster;
  log?: (msg: string) => void;
}

/** Resumed bulk and rule jobs run past the round that started them; the loop waits for them when it stops. */
const resumedJobs = new Set<Promise<unknown>>();

export interface RoundResult {
  retention: RetentionResult | null;
  /** null when the archive horizon is off (or the step failed) */
  archive: ArchiveResult | null;
  fired: number;
  resolved: number;
  delivered: number;
  /** bulk jobs resumed this round (they run on in the background) */
  resumed: string[];
}

/** One round; each step's failure is logged and does not stop the others. */
export async function maintenanceRound(opts: Omit<MaintenanceOptions, "signal"> & { signal?: AbortSignal }): Promise<RoundResult> {
  const now = (opts.now ?? (() => new Date()))();
  const log = opts.log ?? ((m: string) => console.error(m));
  const result: RoundResult = { retention: null, archive: null, fired: 0, resolved: 0, delivered: 0, resumed: [] };
  try {
    result.retention = await runRetention(opts.pool, now, opts.retentionDays);
    if (result.retention.stripped > 0) log(`[maintenance] retention: stripped ${result.retention.stripped} payloads`);
  } catch (err) {
    log(`[maintenance] retention failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const days = await archiveHorizonDays(opts.pool);
    if (days !== null) {
      result.archive = await runArchive(opts.pool, now, days, opts.signal ? { signal: opts.signal } : {});
      if (result.archive.archived > 0)
        log(`[maintenance] archive: moved ${result.archive.archived} settled records${result.archive.more ? " (more due)" : ""}`);
    }
  } catch (err) {
    log(`[maintenance] archive failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const evaluation = await evaluateAlerts(opts.pool, now);
    result.fired = evaluation.fired.length;
    result.resolved = evaluation.resolved.length;
    for (const n of evaluation.fired) log(`[maintenance] alert fired: ${n.message}`);
    const ruleAlerts = await evaluateRuleAlerts(opts.pool, now);
    result.fired += ruleAlerts.fired.length;
    result.resolved += ruleAlerts.resolved;
    for (const message of ruleAlerts.fired) log(`[maintenance] alert fired: ${message}`);
    // Firing and resolution notices both count as delivered (the summary said 0 beside a delivered resolution).
    result.delivered = await deliverResolved(evaluation.resolved, {
      defaultUrl: opts.webhookUrl ?? null,
      ...(opts.post ? { post: opts.post } : {}),
    });
    result.delivered += await deliverFired(opts.pool, now, {
      defaultUrl: opts.webhookUrl ?? null,
      ...(opts.post ? { post: opts.post } : {}),
    });
  } catch (err) {
    log(`[maintenance] alerts failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  result.resumed = await resumeStalledBulkJobs(opts, now, log);
  await resumeStalledRuleJobs(opts, now, log);
  try {
    await pruneRateLimits(opts.pool);
  } catch (err) {
    log(`[maintenance] sign-in limiter pruning failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    await pruneAnsweredPulls(opts.pool, now);
  } catch (err) {
    log(`[maintenance] pull request pruning failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return result;
}

/**
 * Starts a runner for each bulk job whose runner stopped reporting (stalledBulkJobs); they run on in the
 * background. Returns their ids. A failure is logged, never thrown.
 */
export async function resumeStalledBulkJobs(
  opts: Pick<MaintenanceOptions, "pool" | "now"> & { signal?: AbortSignal },
  now: Date,
  log: (msg: string) => void,
): Promise<string[]> {
  const resumed: string[] = [];
  try {
    for (const id of await stalledBulkJobs(opts.pool, now)) {
      resumed.push(id);
      log(`[maintenance] resuming bulk job ${id} (its runner stopped reporting)`);
      const run = runBulkJob(opts.pool, id, { now: opts.now ?? (() => new Date()), ...(opts.signal ? { signal: opts.signal } : {}) })
        .then((job) => log(`[maintenance] bulk job ${id}: ${job.status}, ${job.processed}/${job.matched} processed`))
        .catch((err: unknown) => log(`[maintenance] bulk job ${id} failed: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => resumedJobs.delete(run));
      resumedJobs.add(run);
    }
  } catch (err) {
    log(`[maintenance] bulk job resume failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return resumed;
}

/**
 * Starts a runner for each triage rule's dry run or apply whose runner stopped saving pages (stalledRuleJobs):
 * the server that started it died, or stopped and released it. The runner claims the job first, so two runners
 * (of two servers, or of one) never both run it; aborting `signal` stops it between pages, the job released for
 * another server. Returns the job ids. A failure is logged, never thrown.
 */
export async function resumeStalledRuleJobs(
  opts: Pick<MaintenanceOptions, "pool" | "now"> & { signal?: AbortSignal },
  now: Date,
  log: (msg: string) => void,
): Promise<string[]> {
  const resumed: string[] = [];
  try {
    for (const { ruleId, jobId } of await stalledRuleJobs(opts.pool, now)) {
      resumed.push(jobId);
      log(`[maintenance] resuming rule job ${jobId} of rule ${ruleId} (its runner stopped reporting)`);
      const run = runRuleJob(opts.pool, ruleId, jobId, {
        now: opts.now ?? (() => new Date()),
        originCheck: notReplayableToOrigin,
        ...(opts.signal ? { signal: opts.signal } : {}),
      })
        .then((job) => log(`[maintenance] rule job ${jobId}: ${job.status}, ${job.processed} processed`))
        .catch((err: unknown) => log(`[maintenance] rule job ${jobId} failed: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => resumedJobs.delete(run));
      resumedJobs.add(run);
    }
  } catch (err) {
    log(`[maintenance] rule job resume failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return resumed;
}

/** Resolves when every bulk and rule job resumed so far has stopped (completed, cancelled, failed or aborted). */
export async function resumedJobsSettled(): Promise<void> {
  await Promise.allSettled([...resumedJobs]);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs rounds until `signal` aborts; `done` resolves after the last round has finished. Between rounds, stalled
 * bulk jobs are looked for every `bulkCheckMs` (one indexed query), so a job whose server died resumes within
 * STALE_AFTER_MS and a few seconds even when nobody is watching it.
 */
export function startMaintenance(opts: MaintenanceOptions & { bulkCheckMs?: number }): { done: Promise<void> } {
  const interval = opts.intervalMs ?? 60_000;
  const bulkCheck = opts.bulkCheckMs ?? STALE_AFTER_MS / 2;
  const log = opts.log ?? ((m: string) => console.error(m));
  const rounds = (async () => {
    while (!opts.signal.aborted) {
      await maintenanceRound(opts);
      await pause(interval, opts.signal);
    }
  })();
  const checks = (async () => {
    while (!opts.signal.aborted) {
      await pause(bulkCheck, opts.signal);
      if (opts.signal.aborted) break;
      const now = (opts.now ?? (() => new Date()))();
      await resumeStalledBulkJobs(opts, now, log);
      await resumeStalledRuleJobs(opts, now, log);
    }
  })();
  const done = (async () => {
    await Promise.all([rounds, checks]);
    await resumedJobsSettled();
  })();
  return { done };
}
