import "server-only";
import type pg from "pg";
import type { RepairMethod, RepairPolicy } from "../../vocabulary/record";
import type { Geos } from "../../spatial/geos";
import type { ClaimedItem } from "./claim-items";
import { releaseItems } from "./claim-items";
import type { ClockSync } from "../pacing/clock-sync";
import { errorMessage } from "../../db/transient-errors";
import { isUnpaced, lateLimitMs, pacingFor } from "../pacing/gcra";
import type { GroupWriter } from "./group-writer";
import type { Resolution } from "./write-outcomes";
import { reserveSlots, slowDown } from "../pacing/reserve-slots";
import { revalidate, type Revalidation } from "./revalidate";
import { replayRepair, sentRepair } from "./replay-repair";
import { sleep } from "../../time/sleep";
import { geometryLimits } from "../../env";
import { poisonReason } from "./failure-rules";
import type { Turn } from "../pacing/send-order";
import type { SendWindow } from "../pacing/send-window";
import type { Sink, Submission } from "../sinks/sink";

// One claimed page, per item in this order: still replayable? → re-validate → already settled? → poison
// check → wait for the batch's rate limiter → submit under the stored key → record the outcome (group
// commits, group-writer.ts). Whatever is not submitted when the batch pauses, is cancelled, the sink asks us
// to slow down or the worker stops goes back to the queue: a page always ends with every item finalized or
// released.

export interface BatchConfig {
  id: string;
  sink: Sink;
  ratePerSecond: number;
  pageSize: number;
  maxReplays: number;
  maxAttempts: number;
  repairMethod: RepairMethod;
  repairPolicy: RepairPolicy;
  /** the batch's repair replaces approved ones (confirmed by the supervisor); false: only records without one use it */
  repairOverride: boolean;
}

export interface PageContext {
  pool: pg.Pool;
  batch: BatchConfig;
  workerId: string;
  geos: Geos | null;
  clock: () => Date;
  log: (msg: string) => void;
  /** the worker is stopping: submit nothing new */
  stopping: AbortSignal;
  /** aborts requests in flight (only when a stop takes too long) */
  hardStop: AbortSignal;
  /** the batch is still running, per the worker's status cache (refreshed every ~200 ms) */
  isRunning: () => boolean;
  /** epoch ms before which nothing may be submitted (a Retry-After seen by any lane or worker) */
  holdUntil: () => number;
  /** a slow-down signal with this Retry-After (ms, or null) arrived: hold every lane of this worker */
  onSlowDown: (retryAfterMs: number | null) => void;
  /** records outcomes: one writer for every page of this batch the worker holds (group-writer.ts) */
  writer: GroupWriter;
  /** the database's clock as seen from this worker (slots are times on the database's clock) */
  dbClock: ClockSync;
  /** this page's turn to send among the pages of its batch that the worker holds (send-order.ts) */
  turn?: Turn;
  /** this worker's recent submissions for the batch: keeps 1-s windows within 110% of the rate (send-window.ts) */
  sendWindow?: SendWindow;
}

/** Step 1–3 and the poison check: what to do with an item before the rate limiter. */
export function decideOrSubmit(item: ClaimedItem, ctx: Pick<PageContext, "batch" | "geos">): Resolution | Submission {
  const decided = (outcome: "deduped" | "dropped" | "poison" | "cancelled", reason: string | null): Resolution => ({
    item,
    type: "decided",
    outcome,
    reason,
  });
  if (item.recordStatus !== "approved") return decided("cancelled", `the record is ${item.recordStatus} now (approved when batched)`);
  if (item.edited) return decided("cancelled", "the record was edited after the batch was created: replay it in a new batch");
  // Settled downstream already (earlier replay, or an imported external ledger): deduped without sending.
  if (item.settled) return decided("deduped", null);
  let checked: Revalidation;
  const repair = replayRepair(item.approvedRepair, {
    method: ctx.batch.repairMethod,
    policy: ctx.batch.repairPolicy,
    override: ctx.batch.repairOverride,
  });
  try {
    checked = revalidate(item.kind, item.payload, {
      geos: ctx.geos,
      method: repair.method,
      policy: repair.policy,
      digest: repair.digest,
      limits: geometryLimits(),
    });
  } catch (err) {
    checked = { ok: false, reason: `re-validation failed: ${errorMessage(err)}` };
  }
  if (!checked.ok) return decided("dropped", checked.reason);
  const poison = poisonReason(item, ctx.batch.maxReplays);
  if (poison) return decided("poison", poison);
  return {
    itemId: item.id,
    batchId: item.batchId,
    deadLetterId: item.deadLetterId,
    kind: item.kind,
    idempotencyKey: item.idempotencyKey,
    entityKey: item.entityKey,
    observedAt: item.observedAt,
    payload: checked.payload,
    repair: checked.repair ? sentRepair(repair, item.approvedRepair, checked.repair) : null,
  };
}

/** Longest sleep between looks at the batch's status, so a pause lands within a second. */
const CHECK_EVERY_MS = 200;

export async function processPage(ctx: PageContext, items: ClaimedItem[]): Promise<void> {
  const { batch, pool } = ctx;
  const writer = ctx.writer;
  /** this page's outcomes, each the commit that carries it: the page ends when all of them are written */
  const commits: Promise<void>[] = [];
  const byId = new Map(items.map((i) => [i.id, i]));
  const subs: Submission[] = [];
  for (const item of items) {
    const r = decideOrSubmit(item, ctx);
    if ("type" in r) commits.push(writer.add(r));
    else subs.push(r);
  }

  const pacing = pacingFor(batch.ratePerSecond);
  const unpaced = isUnpaced(batch.ratePerSecond, batch.pageSize);
  const inFlight = new Set<Promise<void>>();
  let next = 0;
  let slowedDown = false;
  const go = () => !ctx.stopping.aborted && ctx.isRunning() && !slowedDown && Date.now() >= ctx.holdUntil();
  try {
    // Re-validated while an earlier page sent; now wait until it holds slots for all its items (batch order).
    if (subs.length > 0 && ctx.turn) await ctx.turn.ready;
    let slotted = 0;
    while (next < subs.length && go()) {
      const sentAt = Date.now();
      const grant = await reserveSlots(pool, batch.id, subs.length - next, pacing);
      const receivedAt = Date.now();
      const t0 = performance.now();
      if (grant.stopped) break;
      ctx.dbClock.add({ sentAt, receivedAt, dbAt: grant.dbNowMs });
      if (grant.granted === 0) {
        await sleep(Math.min(grant.retryInMs, CHECK_EVERY_MS), ctx.stopping);
        continue;
      }
      // Once this page holds slots for every item it has left, the next page's slots can only come after them:
      // it may go. Waiting until this page has *sent* everything would also cap a slow sink at one lane's
      // requests in flight. Slots let go late are taken again, after it.
      slotted += grant.granted;
      if (slotted >= subs.length) ctx.turn?.leave();
      // Slots are times on the database's clock: map them to ours (performance.now() for the waits).
      const local = (dbMs: number) => t0 + (ctx.dbClock.toLocal(dbMs) - receivedAt);
      const grantedAt = local(grant.dbNowMs);
      const lateLimit = lateLimitMs(pacing.toleranceMs);
      for (let i = 0; i < grant.granted && next < subs.length; i++) {
        const due = local(grant.startAtMs + i * grant.intervalMs);
        // Wait for the slot, looking at the batch's status at least every CHECK_EVERY_MS.
        for (let wait = due - performance.now(); wait > 0 && go(); wait = due - performance.now()) {
          await sleep(Math.min(wait, CHECK_EVERY_MS), ctx.stopping);
        }
        if (batch.sink.mode === "remote") {
          while (inFlight.size >= batch.sink.concurrency) await Promise.race(inFlight);
        }
        // Below ~10/s a late submission followed by on-time ones can crowd a 1-s window past 110% (send-window.ts).
        for (
          let hold = ctx.sendWindow?.waitMs(performance.now()) ?? 0;
          hold > 0 && go();
          hold = ctx.sendWindow?.waitMs(performance.now()) ?? 0
        ) {
          await sleep(Math.min(hold, CHECK_EVERY_MS), ctx.stopping);
        }
        // Checked after waiting for a free request slot too: an answer that arrived meanwhile may say stop.
        if (!go()) break;
        // Too late for this slot (we stalled since the grant, or the sink is slower than the rate): let it go
        // rather than burst. Lateness counts from when the slot was granted: a catch-up slot (granted up to the
        // tolerance in the past) is on time when used at once. Unpaced (a page's slots span ≤ 50 ms, so a page
        // is ≤ 5% of a second's slots), the sink's concurrency holds the page back, not the rate: its slots are
        // all used, late or not. Letting them go there would re-reserve over and over, each time waiting on the
        // batch row for the other lanes' outcome commits, far below a plain client loop's rate (bench:replay).
        if (!unpaced && performance.now() - Math.max(due, grantedAt) > lateLimit) continue;
        const sub = subs[next++] as Submission;
        const item = byId.get(sub.itemId) as ClaimedItem;
        ctx.sendWindow?.record(performance.now());
        if (batch.sink.mode === "in-transaction") {
          commits.push(writer.add({ item, type: "deliver", submission: sub, submittedAt: ctx.clock() }));
          continue;
        }
        const sink = batch.sink;
        const submittedAt = ctx.clock();
        const request: Promise<void> = sink
          .submit(sub, ctx.hardStop)
          .then(async (result) => {
            commits.push(writer.add({ item, type: "answered", submission: sub, submittedAt, result }));
            if (result.outcome === "retry" && result.slowDown) {
              // Stop using this page's slots: the rest is re-queued and re-paced at the lowered rate.
              slowedDown = true;
              ctx.onSlowDown(result.retryAfterMs);
              await slowDown(pool, batch.id, result.retryAfterMs).catch((e: unknown) =>
                ctx.log(`replay: slow-down not recorded: ${errorMessage(e)}`),
              );
            }
          })
          .finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
    }
  } finally {
    ctx.turn?.leave(); // stopped, or slots were let go late: dispatching is over either way
    await Promise.allSettled(inFlight);
    const unsent = subs.slice(next).map((s) => byId.get(s.itemId) as ClaimedItem);
    commits.push(writer.add(...unsent.map((item): Resolution => ({ item, type: "release" }))));
    try {
      await Promise.all(commits);
    } catch (err) {
      // Outcomes that could not be written: give the rest back so nothing waits for a lease to expire.
      await releaseItems(
        pool,
        ctx.workerId,
        items.map((i) => i.id),
      ).catch(() => 0);
      throw err;
    }
  }
}
