import "server-only";
import type pg from "pg";
import type { Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import type { Geos } from "../../spatial/geos";
import type { BackoffOptions } from "../pacing/backoff";
import { lockItems } from "./claim-items";
import { isUnpaced, pacingFor, UNPACED_PAGE_SPAN_MS } from "../pacing/gcra";
import { outcomeContext, writeOutcomes, type FlushCounts, type Resolution } from "./write-outcomes";
import { reserveSlots } from "../pacing/reserve-slots";
import { decideOrSubmit, type BatchConfig } from "./process-page";
import { SUSPECT_LEASE_LOSSES } from "./failure-rules";
import { sleep } from "../../time/sleep";
import type { Submission } from "../sinks/sink";

// An unpaced drain into an in-transaction sink (the built-in ledger): lock a page, re-validate it, deliver it
// and record its outcomes in ONE transaction. The lease path (claim-items.ts + process-page.ts) writes every item twice
// — `running` with a lease at claim, its outcome at the end — and re-locks it to check the lease still holds;
// here the page's row locks are the claim: nobody else can take the items (claims skip locked rows, and an
// entity's later items wait because its earlier one is still unfinished), there is no lease to renew or sweep,
// and a crash or a lost connection rolls the page back to exactly what it was — nothing applied, nothing to
// return. The ledger insert is the dedup gate either way, so a page retried after a commit whose answer was
// lost is deduped, never applied twice.
//
// Only for unpaced batches (gcra.ts isUnpaced: a page's slots span at most UNPACED_PAGE_SPAN_MS): a paced page
// (seconds of slots) would hold its locks and its transaction that long, and remote sinks cannot deliver inside
// a transaction at all.

export function usesLockedPages(batch: { sink: Pick<BatchConfig["sink"], "mode">; ratePerSecond: number; pageSize: number }): boolean {
  return batch.sink.mode === "in-transaction" && isUnpaced(batch.ratePerSecond, batch.pageSize);
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
  /**
   * PostgreSQL ends the page's transaction (rolling it back) when the worker leaves it idle this long: a worker
   * that hangs (stopped, cut off) does not hold its items for ever. The worker passes two of its leases, the
   * time after which the lease path's sweeper would give a dead worker's items back.
   */
  idleTimeoutMs: number;
  backoff?: BackoffOptions;
}

export type LockedPageResult =
  /** nothing claimable: the batch is done or not running, or every waiting item is locked or waits its turn */
  | { kind: "idle" }
  /** the rate limiter has no slot yet (other workers reserved ahead): ask again after this long */
  | { kind: "wait"; ms: number }
  /** a suspect (lost with dead workers before) was among the items: none was touched; isolate it on the lease path */
  | { kind: "suspect" }
  | { kind: "done"; claimed: number; counts: FlushCounts };

export async function processLockedPage(ctx: LockedPageContext): Promise<LockedPageResult> {
  const { batch } = ctx;
  // The rate limiter still decides when (all workers share it). Its slots are reserved first, on the pool and
  // before this page takes a connection for its transaction: a lane never holds one connection while it waits
  // for another (with as many lanes as pool connections, they would all wait for ever), and the replay_batch
  // row is locked only for the reservation. At these rates a page's worth of slots spans a few milliseconds;
  // slots of items that turn out not to need one (nothing claimable, decided without sending) go unused.
  const grant = await reserveSlots(ctx.pool, batch.id, batch.pageSize, pacingFor(batch.ratePerSecond));
  const grantedAt = performance.now();
  if (grant.stopped) return { kind: "idle" };
  if (grant.granted === 0) return { kind: "wait", ms: Math.min(grant.retryInMs, UNPACED_PAGE_SPAN_MS) };
  // When the last granted slot comes: a duration on the database's clock, so no offset between the clocks enters.
  // Other workers' reservations can put it up to the limiter's horizon (250 ms) ahead.
  const lastDueAt = grantedAt + grant.startAtMs + (grant.granted - 1) * grant.intervalMs - grant.dbNowMs;

  return inTransaction(ctx.pool, async (client): Promise<LockedPageResult> => {
    const items = await lockItems(client, { batchId: batch.id, limit: grant.granted, idleTimeoutMs: ctx.idleTimeoutMs });
    if (items.length === 0) return { kind: "idle" };
    if (items.some((i) => i.leaseLosses >= SUSPECT_LEASE_LOSSES)) return { kind: "suspect" };
    const geos = items.some((i) => i.kind === "spatial") ? await ctx.geos() : null;
    const resolutions: Resolution[] = [];
    const subs: { item: (typeof items)[number]; submission: Submission }[] = [];
    for (const item of items) {
      const r = decideOrSubmit(item, { batch, geos });
      if ("type" in r) resolutions.push(r);
      else subs.push({ item, submission: r });
    }
    const go = () => !ctx.stopping.aborted && ctx.isRunning();
    if (subs.length > 0 && go() && lastDueAt > performance.now()) await sleep(lastDueAt - performance.now(), ctx.stopping);
    // Paused, cancelled or stopping meanwhile: nothing is delivered, and the items stay exactly as they were.
    const deliver = go();
    const submittedAt = ctx.clock();
    for (const { item, submission } of subs) {
      resolutions.push(deliver ? { item, type: "deliver", submission, submittedAt } : { item, type: "release" });
    }
    const counts = await writeOutcomes(client, resolutions, outcomeContext(batch, ctx, ctx.clock()), { locked: true });
    return { kind: "done", claimed: items.length, counts };
  });
}
