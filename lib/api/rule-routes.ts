import "server-only";
import { after } from "next/server";
import type pg from "pg";
import { AppError } from "../errors/app-error";
import type { Principal } from "../auth/principal";
import { actorOf } from "../auth/principal";
import { runRuleJob } from "../dead-letters/rules/rule-jobs";
import type { RuleContext } from "../rules/rules";
import { STANDING_REPLAY } from "../replay/batch/standing-rules";
import { notReplayableToOrigin } from "../replay/sinks/origin/origin-destinations";
import type { RuleJobView } from "../rules/rule-schemas";
import { answer, type JsonAnswer } from "./handler";

// Glue between app/api/rules/** and lib/rules, lib/dead-letters/rules: each route file stays a few lines.

/** A dry run that has not finished within this long answers 202 with its job, which goes on after the answer. */
export const DRY_RUN_INLINE_MS = 1000;

export function ruleContext(principal: Principal | null, requestId: string, now: Date): RuleContext {
  if (!principal) throw new AppError("unauthenticated", "sign in or send Authorization: Bearer <token>");
  return { standing: STANDING_REPLAY, actor: actorOf(principal), role: principal.role, scope: principal.scope, requestId, now };
}

const location = (job: RuleJobView) => `/api/rules/${job.ruleId}/jobs/${job.id}`;

/**
 * Runs a rule's job: answered 200 with its counts when it ends within `inlineMs`, else 202 with the job (its
 * progress at GET /api/rules/{id}/jobs/{jobId}) while the server keeps working on it after the answer.
 */
export async function runRuleJobRoute(pool: pg.Pool, job: RuleJobView, inlineMs: number): Promise<JsonAnswer> {
  const run = runRuleJob(pool, job.ruleId, job.id, { now: () => new Date(), originCheck: notReplayableToOrigin });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), inlineMs);
  });
  const done = await Promise.race([run, late]);
  clearTimeout(timer);
  if (done) return answer({ job: done }, { status: 200 });
  after(() => run.then(() => undefined));
  return answer({ job }, { status: 202, headers: { location: location(job) } });
}

/**
 * Resumes a job whose runner died or stopped (pollRuleJob's `resume`) after the answer went out, as a bulk job's
 * poll does (run-in-background.ts): the runner claims it first, so polls of several readers start one runner.
 */
export function resumeRuleJob(pool: pg.Pool, job: RuleJobView): void {
  after(() =>
    runRuleJob(pool, job.ruleId, job.id, { now: () => new Date(), originCheck: notReplayableToOrigin }).then(
      () => undefined,
      () => undefined,
    ),
  );
}
