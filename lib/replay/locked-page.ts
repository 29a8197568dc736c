import type pg from "pg";
import type { Actor } from "../audit/append";
import { inTransaction } from "../db/transaction";
import type { Geos } from "../spatial/geos";
import type { BackoffOptions } from "./backoff";
import { lockItems } from "./claim";
import { pacingFor } from "./gcra";
import { writeOutcomes, type FlushCounts, type Resolution } from "./outcomes";
import { reserveSlots } from "./pacer";
import { prepare, type BatchConfig } from "./processor";
import { SUSPECT_LEASE_LOSSES } from "./rules";
import { sleep } from "./sleep";
import type { Submission } from "./sinks/types";

// An unpaced drain into an in-transaction sink (the built-in ledger): lock a page, re-validate it, deliver it
// and record its outcomes in ONE transaction. The lease path (claim.ts + processor.ts) writes every item twice
// — `running` with a lease at claim, its outcome at the end — and re-locks it to check the lease still holds;
// here the page's row locks are the claim: nobody else can take the items (claims skip locked rows, and an
// entity's later items wait because its earlier one is still unfinished), there is no lease to renew or sweep,
// and a crash or a lost connection rolls the page back to exactly what it was — nothing applied, nothing to
// return. The ledger insert is the dedup gate either way, so a page retried after a commit whose answer was
// lost is deduped, never applied twice.
//
// Only where a page's slots span at most LOCKED_PAGE_MAX_SPAN_MS: a paced page (seconds of slots) would hold its
// locks and its transaction that long, and remote sinks cannot deliver inside a transaction at all.

/** A page whose slots at the batch's rate span at most this goes through one transaction. */
export const LOCKED_PAGE_MAX_SPAN_MS = 50;

export function usesLockedPages(batch: { sink: Pick<BatchConfig["sink"], "mode">; ratePerSecond: number; pageSize: number }): boolean {
  return batch.sink.mode === "in-transaction" && (batch.pageSize * 1000) / batch.ratePerSecond <= LOCKED_PAGE_MAX_SPAN_MS;
}

export interface LockedPageContext {
  pool: pg.Pool;
  batch: BatchConfig;
  workerId: string;
  actor: Actor;
  /** GEOS, loaded when the page holds a spatial record */
  geos: () => Promise<Geos>;
  random: () => number;
  clock: () => Date;
  /** the worker is stopping: deliver nothing new */
  stopping: AbortSignal;
  /** the batch is still running, per the worker's status cache */
  isRunning: () => boolean;
  backoff?: BackoffOptions;
}

export type LockedPageResult =
  /** nothing claimable: the batch is done, or every waiting item is locked by another worker or waits its turn */
  | { claimed: 0 }
  /** a suspect (lost with dead workers before) was among the items: none was touched; isolate it on the lease path */
  | { claimed: number; suspect: true }
  | { claimed: number; counts: FlushCounts };

export async function processLockedPage(ctx: LockedPageContext): Promise<LockedPageResult> {
  const { batch } = ctx;
  return inTransaction(ctx.pool, async (client): Promise<LockedPageResult> => {
    const items = await lockItems(client, { batchId: batch.id, limit: batch.pageSize });
    if (items.length === 0) return { claimed: 0 };
    if (items.some((i) => i.leaseLosses >= SUSPECT_LEASE_LOSSES)) return { claimed: items.length, suspect: true };
    const geos = items.some((i) => i.kind === "spatial") ? await ctx.geos() : null;
    const resolutions: Resolution[] = [];
    const subs: { item: (typeof items)[number]; submission: Submission }[] = [];
    for (const item of items) {
      const r = prepare(item, { batch, geos });
      if ("type" in r) resolutions.push(r);
      else subs.push({ item, submission: r });
    }

    // The batch's rate limiter still decides when (all workers share it); at these rates a page's slots span
    // a few milliseconds. Reserved on the pool, not in this transaction: the replay_batch row lock is held only
    // for the reservation, never while a page is recorded.
    const pacing = pacingFor(batch.ratePerSecond);
    const go = () => !ctx.stopping.aborted && ctx.isRunning();
    let delivered = 0;
    while (delivered < subs.length && go()) {
      const grant = await reserveSlots(ctx.pool, batch.id, subs.length - delivered, pacing);
      if (grant.stopped) break;
      if (grant.granted === 0) {
        await sleep(Math.min(grant.retryInMs, LOCKED_PAGE_MAX_SPAN_MS), ctx.stopping);
        continue;
      }
      // Until the last granted slot: a duration on the database's clock, so no offset between the clocks enters.
      // Other workers' reservations can put it up to the limiter's horizon (250 ms) ahead.
      const lastDueInMs = grant.startAtMs + (grant.granted - 1) * grant.intervalMs - grant.dbNowMs;
      if (lastDueInMs > 0) await sleep(lastDueInMs, ctx.stopping);
      if (!go()) break; // paused, cancelled or stopping while waiting: these slots go unused
      const submittedAt = ctx.clock();
      for (const { item, submission } of subs.slice(delivered, delivered + grant.granted)) {
        resolutions.push({ item, type: "deliver", submission, submittedAt });
      }
      delivered += grant.granted;
    }
    for (const { item } of subs.slice(delivered)) resolutions.push({ item, type: "release" });

    const counts = await writeOutcomes(client, resolutions, {
      batchId: batch.id, workerId: ctx.workerId, actor: ctx.actor, sink: batch.sink, maxAttempts: batch.maxAttempts,
      random: ctx.random, now: ctx.clock(), backoff: ctx.backoff,
    }, { locked: true });
    return { claimed: items.length, counts };
  });
}
