// The replay benchmark's references: graphile-worker in its best configuration as measured on these machines
// (localQueue 500 + completeJobBatchDelay 0 + failJobBatchDelay 0, its fastest settings for no-op jobs), all jobs added by one graphile_worker.add_jobs call, draining
//  - no-op jobs: what a queue costs with nothing to do (the engine cannot match it: its items need writes);
//  - one job per replay item whose task does the writes the built-in ledger path does for it, in one statement
//    (one round trip, as favourable to graphile-worker as a team could write it): the ledger insert with its
//    dedup conflict, the entity-state upsert (last write wins by observation), the item's outcome and the
//    record's status — the fair reference, what a team would otherwise build.
import { Logger, run, runMigrations, type Task } from "graphile-worker";
import pg from "pg";

const quiet = new Logger(() => () => {});

export interface ReferenceResult {
  concurrency: number;
  seconds: number;
  perSecond: number;
}

/** The fair task's one statement: the ledger path's writes for item $1 (deduped keys leave the entity alone). */
const ITEM_WRITES = `WITH item AS (
     SELECT i.id, i.batch_id, i.dead_letter_id, i.kind, i.idempotency_key, i.entity_key, i.observed_at, d.payload
     FROM replay_item i JOIN dead_letter d ON d.id = i.dead_letter_id WHERE i.id = $1),
   gate AS (
     INSERT INTO ledger_entry (idempotency_key, kind, entity_key, observed_at, applied_at, batch_id, item_id, dead_letter_id, origin)
     SELECT idempotency_key, kind, entity_key, observed_at, now(), batch_id, id, dead_letter_id, 'replay' FROM item
     ON CONFLICT (idempotency_key) DO NOTHING RETURNING item_id),
   entity AS (
     INSERT INTO entity_state (kind, entity_key, observed_at, idempotency_key, payload, updated_at)
     SELECT kind, entity_key, observed_at, idempotency_key, payload, now() FROM item
     WHERE entity_key IS NOT NULL AND EXISTS (SELECT 1 FROM gate)
     ON CONFLICT (kind, entity_key) DO UPDATE SET observed_at = EXCLUDED.observed_at, idempotency_key = EXCLUDED.idempotency_key,
       payload = EXCLUDED.payload, updated_at = EXCLUDED.updated_at
     WHERE entity_state.observed_at < EXCLUDED.observed_at),
   outcome AS (
     UPDATE replay_item i SET status = CASE WHEN EXISTS (SELECT 1 FROM gate) THEN 'applied' ELSE 'deduped' END::"ReplayItemStatus",
       submitted_at = now(), finished_at = now() FROM item WHERE i.id = item.id),
   record AS (
     UPDATE dead_letter d SET status = 'replayed', replay_count = d.replay_count + 1, version = d.version + 1, updated_at = now()
     FROM item WHERE d.id = item.dead_letter_id)
   SELECT 1`;

async function drainJobs(
  pool: pg.Pool,
  label: string,
  jobs: number,
  concurrency: number,
  addSql: string,
  addParams: unknown[],
  task: Task,
  say: (m: string) => void,
): Promise<ReferenceResult> {
  const added = performance.now();
  await pool.query(addSql, addParams);
  say(`graphile-worker: ${jobs} ${label} jobs added with one add_jobs call in ${((performance.now() - added) / 1000).toFixed(2)} s`);
  await pool.query("VACUUM ANALYZE graphile_worker._private_jobs");
  let done = 0;
  let finish: () => void = () => undefined;
  const allRan = new Promise<void>((r) => (finish = r));
  const started = performance.now();
  const runner = await run({
    pgPool: pool,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    logger: quiet,
    taskList: {
      [label]: async (payload, helpers) => {
        await task(payload, helpers);
        if (++done === jobs) finish();
      },
    },
    preset: { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  });
  await allRan;
  // Completed means deleted: wait for the last batched completions to commit.
  for (;;) {
    const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM graphile_worker._private_jobs");
    if (rows[0]?.n === 0) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  const perSecond = Math.round(jobs / seconds);
  say(`graphile-worker ${label}, 1 process × concurrency ${concurrency}: ${jobs} jobs in ${seconds.toFixed(2)} s = ${perSecond}/s`);
  return { concurrency, seconds: Number(seconds.toFixed(2)), perSecond };
}

async function withPool<T>(url: string, fn: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 40 });
  pool.on("error", () => undefined);
  try {
    await runMigrations({ pgPool: pool, logger: quiet });
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

/** Drains `jobs` no-op jobs once per concurrency setting; the best is the no-op reference. */
export async function benchGraphile(
  url: string,
  jobs: number,
  say: (m: string) => void,
  concurrencies = [1, 10],
): Promise<ReferenceResult[]> {
  return withPool(url, async (pool) => {
    const out: ReferenceResult[] = [];
    for (const concurrency of concurrencies) {
      const add = `SELECT count(*) FROM graphile_worker.add_jobs(array(
         SELECT row('noop', '{}'::json, null, null, null, null, null, null)::graphile_worker.job_spec FROM generate_series(1, $1)))`;
      out.push(await drainJobs(pool, "noop", jobs, concurrency, add, [jobs], async () => undefined, say));
    }
    return out;
  });
}

/**
 * The fair reference: one job per item of `batchId` (approved, not started: no engine worker touches it), each
 * doing that item's ledger-path writes, once per concurrency setting (the caller re-seeds in between through
 * `reset`); the best is the reference.
 */
export async function benchGraphileFair(
  url: string,
  batchId: string,
  jobs: number,
  say: (m: string) => void,
  reset: () => Promise<string>,
  concurrencies = [10, 20],
): Promise<ReferenceResult[]> {
  return withPool(url, async (pool) => {
    const out: ReferenceResult[] = [];
    let batch = batchId;
    for (const [i, concurrency] of concurrencies.entries()) {
      if (i > 0) batch = await reset();
      const add = `SELECT count(*) FROM graphile_worker.add_jobs(array(
         SELECT row('ledger_item', json_build_object('item', id::text), null, null, null, null, null, null)::graphile_worker.job_spec
         FROM replay_item WHERE batch_id = $1 ORDER BY seq))`;
      const task: Task = async (payload, helpers) => {
        await helpers.query(ITEM_WRITES, [(payload as { item: string }).item]);
      };
      out.push(await drainJobs(pool, "ledger_item", jobs, concurrency, add, [batch], task, say));
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM replay_item WHERE batch_id = $1 AND status IN ('applied', 'deduped')`,
        [batch],
      );
      if (rows[0]?.n !== jobs) throw new Error(`graphile-worker fair reference: expected ${jobs} items settled, found ${rows[0]?.n}`);
    }
    return out;
  });
}
