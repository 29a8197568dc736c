// The replay benchmark's reference: graphile-worker draining no-op jobs in its best configuration as
// measured on these machines (STACK-NOTES: localQueue 500 + completeJobBatchDelay 0 + failJobBatchDelay 0,
// ~22–23k jobs/s on an idle PostgreSQL 15), with all jobs added by one graphile_worker.add_jobs call.
import { Logger, run, runMigrations } from "graphile-worker";
import pg from "pg";

const quiet = new Logger(() => () => {});

export interface ReferenceResult {
  concurrency: number;
  seconds: number;
  perSecond: number;
}

/** Drains `jobs` no-op jobs once per concurrency setting; the best is the reference. */
export async function benchGraphile(
  url: string,
  jobs: number,
  say: (m: string) => void,
  concurrencies = [1, 10],
): Promise<ReferenceResult[]> {
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  pool.on("error", () => undefined);
  await runMigrations({ pgPool: pool, logger: quiet });
  const out: ReferenceResult[] = [];
  try {
    for (const concurrency of concurrencies) {
      const added = performance.now();
      await pool.query(
        `SELECT count(*) FROM graphile_worker.add_jobs(array(
           SELECT row('noop', '{}'::json, null, null, null, null, null, null)::graphile_worker.job_spec FROM generate_series(1, $1)))`,
        [jobs],
      );
      say(`graphile-worker: ${jobs} jobs added with one add_jobs call in ${((performance.now() - added) / 1000).toFixed(2)} s`);
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
          noop: async () => {
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
      out.push({ concurrency, seconds: Number(seconds.toFixed(2)), perSecond });
      say(`graphile-worker, 1 process × concurrency ${concurrency}: ${jobs} jobs in ${seconds.toFixed(2)} s = ${perSecond}/s`);
    }
  } finally {
    await pool.end();
  }
  return out;
}
