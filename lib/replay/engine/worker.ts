import "server-only";
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import type { Actor } from "../../audit/actor";
import type { Db } from "../../db/client";
import type { RepairMethod, RepairPolicy } from "../../vocabulary/record";
import { getGeos, type Geos } from "../../spatial/geos";
import type { BackoffOptions } from "../pacing/backoff";
import {
  claimItems,
  completeIfDone,
  endedBatchesWithWaitingItems,
  heartbeat,
  registerWorker,
  releaseItems,
  runningBatchesToComplete,
  sweepExpired,
} from "./claim-items";
import { cancelWaitingItems, failBatch, recentSubmissions, selfPause } from "../batch/apply-batch-action";
import { checkCanary } from "../batch/standing-batch";
import { errorMessage, isTransientDbError } from "../../db/transient-errors";
import { claimSizeFor } from "../pacing/gcra";
import type { ClaimedItem } from "./claim-items";
import { ClockSync } from "../pacing/clock-sync";
import { outcomeContext, type FlushCounts } from "./write-outcomes";
import { processPage, type BatchConfig } from "./process-page";
import { processLockedPage, usesLockedPages } from "./locked-page";
import { GroupWriter } from "./group-writer";
import { failureVerdict, SUSPECT_LEASE_LOSSES } from "./failure-rules";
import { z } from "zod";
import type { ItemStatus } from "../batch/batch-schemas";
import { makeSink, openStoredSink, type StoredSinkConfig } from "../sinks/registry.server";
import { SendOrder, type Turn } from "../pacing/send-order";
import { SendWindow, windowCap, WINDOWED_UP_TO } from "../pacing/send-window";
import { closeOriginConnections } from "../sinks/origin/origin-sink";
import { closeTargetPools } from "../sinks/postgis/target-pools";
import { sleep } from "../../time/sleep";

// A replay worker: `concurrency` lanes that each claim a page of a running batch, process it and come back;
// a heartbeat that renews this worker's leases; a sweeper that returns the items of dead workers and
// completes batches whose last worker died. Any number of workers, in this process or others, on this machine
// or others, share the same PostgreSQL. stop() (or aborting `signal`, e.g. on SIGTERM) lets every lane finish
// its page — in-flight submissions complete, the rest goes back to the queue — and then returns.

export interface WorkerOptions {
  db: Db;
  workerId?: string;
  signal?: AbortSignal;
  log: (msg: string) => void;
  /** pages processed at once (default 2: one commits while the other claims or waits for slots) */
  concurrency?: number;
  /** how long a claim stays ours without a heartbeat (default 30 s) */
  leaseMs?: number;
  /** how often batch statuses are read, and the idle poll (default 200 ms: pause lands within a second) */
  pollMs?: number;
  backoff?: BackoffOptions;
  random?: () => number;
  clock?: () => Date;
}

export interface WorkerHandle {
  id: string;
  stop(): Promise<void>;
  /** resolves when the worker has stopped */
  done: Promise<void>;
}

/** Requests in flight get this long after stop() before they are aborted. */
const STOP_GRACE_MS = 15_000;
/** Non-transient errors in a row after which a batch is failed (a bug or a broken batch must not spin). */
const MAX_ENGINE_ERRORS = 3;

export function startWorker(opts: WorkerOptions): WorkerHandle {
  const id = opts.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const pool = opts.db.pool;
  const leaseMs = opts.leaseMs ?? 30_000;
  const pollMs = opts.pollMs ?? 200;
  const clock = opts.clock ?? (() => new Date());
  const random = opts.random ?? Math.random;
  const actor: Actor = { id: null, email: `worker:${id}`, role: "system" };
  const stopping = new AbortController();
  const hardStop = new AbortController();
  // Every lane sleeps on these signals and every HTTP request in flight listens to hardStop (up to the sink's
  // 64 per lane; each listener is removed when its wait or request ends): with a few lanes Node's default of 10
  // warned of a leak that is not one.
  setMaxListeners(16 + 68 * Math.max(1, opts.concurrency ?? 2), stopping.signal, hardStop.signal);
  const running = new Map<string, BatchConfig>();
  /** running standing replays whose canary still watches (read at every refresh): judged after each page */
  const canaries = new Set<string>();
  const idleUntil = new Map<string, number>();
  const engineErrors = new Map<string, number>();
  /** batch → epoch ms before which this worker submits nothing (Retry-After); see refresh() and lanes */
  const holds = new Map<string, number>();
  const lastThrottle = new Map<string, number>();
  let geos: Geos | null = null;
  /** items claimed by this worker's lanes and not yet finished or released: the heartbeat renews these */
  const held = new Set<string>();
  const dbClock = new ClockSync();
  let turn = 0;
  /** pages of a batch send in batch order within this worker (send-order.ts) */
  const sendOrder = new SendOrder();
  /** batch → this worker's recent submissions, for the 1-s window bound (send-window.ts); dropped with the batch */
  const windows = new Map<string, { rate: number; window: SendWindow }>();
  const windowFor = (batch: BatchConfig): SendWindow | undefined => {
    if (batch.ratePerSecond > WINDOWED_UP_TO) return undefined;
    const known = windows.get(batch.id);
    if (known && known.rate === batch.ratePerSecond) return known.window;
    const window = new SendWindow(windowCap(batch.ratePerSecond));
    windows.set(batch.id, { rate: batch.ratePerSecond, window });
    return window;
  };
  /** batch → the writer of its outcomes, shared by the lanes' pages (group-writer.ts); dropped with the batch */
  const writers = new Map<string, GroupWriter>();
  const writerFor = (batch: BatchConfig): GroupWriter => {
    let writer = writers.get(batch.id);
    if (!writer) {
      writer = new GroupWriter({
        pool,
        clock,
        log,
        onFlushed: (counts) => void checkFailures(batch.id, counts).catch((e: unknown) => log(`failure check: ${errorMessage(e)}`)),
        context: (now) => outcomeContext(batch, { workerId: id, actor, random, backoff: opts.backoff }, now),
      });
      writers.set(batch.id, writer);
    }
    return writer;
  };
  /** batch → the claim in progress: one claim at a time per batch, so pages enter sendOrder in claim order */
  const claiming = new Map<string, Promise<unknown>>();

  const log = (msg: string) => opts.log(`[worker ${id}] ${msg}`);

  async function refresh(): Promise<void> {
    const { rows } = await pool.query<{
      id: string;
      sink: unknown;
      rate_per_second: number;
      page_size: number;
      max_replays: number;
      max_attempts: number;
      repair_method: string;
      repair_policy: string;
      repair_override: boolean;
      throttled_ms: number | null;
      tat_in_ms: number | null;
      canary: boolean;
    }>(
      `SELECT id::text AS id, sink, rate_per_second, page_size, max_replays, max_attempts, repair_method, repair_policy, repair_override,
         (extract(epoch FROM throttled_at) * 1000)::float8 AS throttled_ms, (extract(epoch FROM tat - now()) * 1000)::float8 AS tat_in_ms,
         canary_count IS NOT NULL AND canary_passed_at IS NULL AS canary
       FROM replay_batch WHERE status = 'running' ORDER BY replay_batch.id`,
    );
    const seen = new Set<string>();
    canaries.clear();
    for (const r of rows) {
      seen.add(r.id);
      if (r.canary) canaries.add(r.id);
      // Another worker hit a 429/503: its Retry-After pushed tat; hold our lanes until then too.
      if (r.throttled_ms !== null && r.throttled_ms !== lastThrottle.get(r.id)) {
        if (lastThrottle.has(r.id) && r.tat_in_ms !== null && r.tat_in_ms > 0) {
          holds.set(r.id, Math.max(holds.get(r.id) ?? 0, Date.now() + r.tat_in_ms));
        }
        lastThrottle.set(r.id, r.throttled_ms);
      }
      if (running.has(r.id)) continue;
      let sink: StoredSinkConfig;
      try {
        sink = openStoredSink(r.sink);
      } catch (err) {
        const why = err instanceof z.ZodError ? (err.issues[0]?.message ?? "invalid") : (err as Error).message;
        await failBatch(pool, r.id, `unusable sink configuration: ${why}`, actor, clock());
        continue;
      }
      running.set(r.id, {
        id: r.id,
        sink: makeSink(sink, id, pool),
        ratePerSecond: r.rate_per_second,
        pageSize: r.page_size,
        maxReplays: r.max_replays,
        maxAttempts: r.max_attempts,
        repairMethod: r.repair_method as RepairMethod,
        repairPolicy: r.repair_policy as RepairPolicy,
        repairOverride: r.repair_override,
      });
    }
    for (const key of running.keys()) if (!seen.has(key)) running.delete(key);
    for (const key of windows.keys()) if (!seen.has(key)) windows.delete(key);
    // Pages still running keep their reference to a dropped writer until they end.
    for (const key of writers.keys()) if (!seen.has(key)) writers.delete(key);
  }

  function pick(): BatchConfig | null {
    const now = Date.now();
    const ready = [...running.values()].filter((b) => (idleUntil.get(b.id) ?? 0) <= now && (holds.get(b.id) ?? 0) <= now);
    if (ready.length === 0) return null;
    return ready[turn++ % ready.length] ?? null;
  }

  async function checkFailures(batchId: string, counts: FlushCounts): Promise<void> {
    if (canaries.has(batchId)) {
      // Every page, successes too: the canary is judged when its last item answers, whatever that answer.
      const verdict = await checkCanary(pool, batchId, actor, clock());
      if (verdict?.state !== "watching") canaries.delete(batchId);
      if (verdict?.state === "tripped") return log(`batch ${batchId}: ${verdict.reason}`);
    }
    if (counts.retry + counts.failed + counts.poison === 0) return;
    const recent = await recentSubmissions(pool, batchId);
    const verdict = failureVerdict(recent.statuses as ItemStatus[], recent.threshold);
    if (verdict.pause && verdict.reason && (await selfPause(pool, batchId, verdict.reason, actor, clock()))) {
      log(`batch ${batchId}: ${verdict.reason}`);
    }
  }

  /** One claimed page: isolate a suspect, process, and let every item end finalized or released. */
  /** Claims a page and takes its turn to send; claims of one batch run one after another in this worker. */
  async function claimPage(batch: BatchConfig): Promise<{ claimed: ClaimedItem[]; turn: Turn | null }> {
    const before = claiming.get(batch.id) ?? Promise.resolve();
    const mine = before
      .catch(() => undefined)
      .then(async () => {
        const claimed = await claimItems(pool, {
          batchId: batch.id,
          workerId: id,
          limit: claimSizeFor(batch.ratePerSecond, batch.pageSize),
          leaseMs,
        });
        return { claimed, turn: claimed[0] ? sendOrder.enter(batch.id, claimed[0].seq) : null };
      });
    claiming.set(batch.id, mine);
    try {
      return await mine;
    } finally {
      if (claiming.get(batch.id) === mine) claiming.delete(batch.id);
    }
  }

  async function runPage(batch: BatchConfig, claimed: ClaimedItem[], turn: Turn | null): Promise<void> {
    let items = claimed;
    if (items.length === 0) return nothingToClaim(batch);
    // A suspect (lost with dead workers before) goes alone; the rest of the page goes back to the queue.
    const suspect = items.find((i) => i.leaseLosses >= SUSPECT_LEASE_LOSSES);
    if (suspect && items.length > 1) {
      await releaseItems(
        pool,
        id,
        items.filter((i) => i !== suspect).map((i) => i.id),
      );
      items = [suspect];
    }
    if (!geos && items.some((i) => i.kind === "spatial")) geos = await getGeos();
    await processPage(
      {
        pool,
        batch,
        workerId: id,
        geos,
        clock,
        log,
        stopping: stopping.signal,
        hardStop: hardStop.signal,
        dbClock,
        isRunning: () => running.has(batch.id),
        writer: writerFor(batch),
        ...(turn ? { turn } : {}),
        sendWindow: windowFor(batch),
        holdUntil: () => holds.get(batch.id) ?? 0,
        onSlowDown: (retryAfterMs) => {
          if (retryAfterMs) holds.set(batch.id, Math.max(holds.get(batch.id) ?? 0, Date.now() + retryAfterMs));
        },
      },
      items,
    );
  }

  /** Nothing of the batch was claimable: look again after a poll, and complete it if nothing is left at all. */
  async function nothingToClaim(batch: BatchConfig): Promise<void> {
    idleUntil.set(batch.id, Date.now() + pollMs);
    if (await completeIfDone(pool, batch.id, actor, clock())) log(`batch ${batch.id} completed`);
  }

  /** A page claimed under a lease (claim-items.ts) and processed by processor.ts. */
  async function leasedRound(batch: BatchConfig): Promise<void> {
    const { claimed, turn: sendTurn } = await claimPage(batch);
    for (const i of claimed) held.add(i.id);
    try {
      await runPage(batch, claimed, sendTurn);
    } finally {
      sendTurn?.leave();
      for (const i of claimed) held.delete(i.id);
    }
  }

  /** A page locked, delivered and recorded in one transaction; false when it must go through the lease path. */
  async function lockedRound(batch: BatchConfig): Promise<boolean> {
    const page = await processLockedPage({
      pool,
      batch,
      workerId: id,
      actor,
      random,
      clock,
      stopping: stopping.signal,
      backoff: opts.backoff,
      isRunning: () => running.has(batch.id),
      idleTimeoutMs: 2 * leaseMs,
      geos: async () => (geos ??= await getGeos()),
    });
    switch (page.kind) {
      case "suspect":
        return false;
      case "done":
        void checkFailures(batch.id, page.counts).catch((e: unknown) => log(`failure check: ${errorMessage(e)}`));
        return true;
      case "wait":
        idleUntil.set(batch.id, Date.now() + page.ms);
        return true;
      case "idle":
        await nothingToClaim(batch);
        return true;
    }
  }

  async function lane(): Promise<void> {
    while (!stopping.signal.aborted) {
      const batch = pick();
      if (!batch) {
        await sleep(pollMs, stopping.signal);
        continue;
      }
      try {
        // An unpaced drain into the ledger: a page in one transaction (locked-page.ts). A suspect among its
        // items sends this round through the lease path, which isolates it.
        if (!usesLockedPages(batch) || !(await lockedRound(batch))) await leasedRound(batch);
        engineErrors.delete(batch.id);
      } catch (err) {
        if (isTransientDbError(err)) {
          log(`database unavailable (${errorMessage(err)}); retrying`);
          await sleep(500 + random() * 1000, stopping.signal);
          continue;
        }
        const n = (engineErrors.get(batch.id) ?? 0) + 1;
        engineErrors.set(batch.id, n);
        log(`batch ${batch.id}: engine error ${n}/${MAX_ENGINE_ERRORS}: ${errorMessage(err)}`);
        if (n >= MAX_ENGINE_ERRORS) {
          await failBatch(pool, batch.id, `engine error: ${errorMessage(err)}`, actor, clock()).catch(() => false);
          engineErrors.delete(batch.id);
        }
        await sleep(1000, stopping.signal);
      }
    }
  }

  /** Runs `fn` every `everyMs` (jittered, so workers do not sweep in step) until the worker stops. */
  async function every(everyMs: number, what: string, fn: () => Promise<unknown>): Promise<void> {
    while (!stopping.signal.aborted) {
      await fn().catch((err: unknown) => {
        if (!isTransientDbError(err)) log(`${what}: ${errorMessage(err)}`);
      });
      await sleep(everyMs * (0.8 + random() * 0.4), stopping.signal);
    }
  }

  /** Since when this worker's heartbeats have been succeeding without a gap (null: the last one failed). */
  let healthySince: number | null = null;

  async function beat(): Promise<void> {
    try {
      const { orphans } = await heartbeat(pool, { id, hostname: hostname(), pid: process.pid }, leaseMs, [...held]);
      if (orphans > 0) log(`gave back ${orphans} item(s) left locked by an earlier error`);
      healthySince ??= Date.now();
    } catch (err) {
      healthySince = null;
      throw err;
    }
  }

  async function sweep(): Promise<void> {
    // After a database outage every worker's heartbeat looks stale at once. Sweep only once this worker has
    // been connected for a whole lease, so the other live workers have had time to beat again.
    if (healthySince === null || Date.now() - healthySince < leaseMs) return;
    const swept = await sweepExpired(pool);
    if (swept > 0) log(`returned ${swept} item(s) whose worker stopped renewing its lease`);
    // Waiting items of batches cancelled while the canceller's process stopped (apply-batch-action.ts marks them after).
    for (const batchId of await endedBatchesWithWaitingItems(pool)) {
      const n = await cancelWaitingItems(pool, batchId, clock());
      if (n > 0) log(`batch ${batchId}: marked ${n} waiting item(s) cancelled`);
    }
    for (const batchId of await runningBatchesToComplete(pool)) {
      if (await completeIfDone(pool, batchId, actor, clock())) log(`batch ${batchId} completed`);
    }
    await pool.query(`DELETE FROM worker WHERE heartbeat_at < now() - 10 * lease_ms * interval '1 millisecond'`);
  }

  async function run(): Promise<void> {
    for (;;) {
      try {
        await registerWorker(pool, { id, hostname: hostname(), pid: process.pid }, leaseMs);
        await refresh();
        break;
      } catch (err) {
        if (stopping.signal.aborted) return;
        log(`cannot register yet: ${errorMessage(err)}`);
        await sleep(1000, stopping.signal);
      }
    }
    log(`started (${opts.concurrency ?? 2} lane(s), lease ${leaseMs} ms)`);
    const background = [
      every(pollMs, "status poll", refresh),
      every(Math.max(100, leaseMs / 3), "heartbeat", beat),
      every(Math.max(250, Math.min(5000, leaseMs / 4)), "sweeper", sweep),
    ];
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 2) }, () => lane()));
    await Promise.all(background);
    await closeOriginConnections();
    await closeTargetPools();
    await pool.query(`DELETE FROM worker WHERE id = $1`, [id]).catch(() => undefined);
    log("stopped");
  }

  const done = run();
  const handle: WorkerHandle = {
    id,
    done,
    stop: async () => {
      stopping.abort();
      const t = setTimeout(() => hardStop.abort(), STOP_GRACE_MS);
      try {
        await done;
      } finally {
        clearTimeout(t);
      }
    },
  };
  opts.signal?.addEventListener("abort", () => void handle.stop(), { once: true });
  if (opts.signal?.aborted) void handle.stop();
  return handle;
}
