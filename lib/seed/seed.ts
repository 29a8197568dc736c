import "server-only";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Db } from "../db/client";
import { seedChunks, type ChunkResult } from "./seed-chunks";

export { DEMO_BASE } from "./seed-chunks";

// Deterministic demo data: the same --seed and --count give the same records. Records go through the real
// ingest pipeline (validation, repair, classification, hashing, audit), so the demo shows what production
// would store. Chunks have their own RNG stream, so a record does not depend on how many came before it in
// other chunks.

export interface SeedOptions {
  count: number;
  seed: number;
  reset?: boolean;
  /** worker threads generating and normalizing in parallel (default: one per core for large counts) */
  threads?: number;
  log: (msg: string) => void;
}

/** Below this many records, threads cost more to start than they save. */
const PARALLEL_FROM = 20_000;

function runWorker(job: Parameters<typeof seedChunks>[0]): Promise<ChunkResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL("./seed-worker.mjs", import.meta.url), { workerData: job });
    w.once("message", (r: ChunkResult) => resolve(r));
    w.once("error", reject);
    w.once("exit", (code) => code !== 0 && reject(new Error(`seed worker exited with ${code}`)));
  });
}

export async function seedDemo(db: Db, opts: SeedOptions): Promise<{ created: number; duplicates: number; rejected: number }> {
  const { pool } = db;
  if (opts.reset) {
    await pool.query(
      "TRUNCATE dead_letter, failure_attempt, replay_item, replay_batch, ledger_entry, entity_state RESTART IDENTITY CASCADE",
    );
    opts.log("reset: removed dead letters, replay batches and the ledger (the audit trail is append-only and stays)");
  }
  const { seedDemoAccounts } = await import("../auth/users");
  const accounts = await seedDemoAccounts(db);

  const started = performance.now();
  const threads = opts.threads ?? (opts.count >= PARALLEL_FROM ? Math.min(availableParallelism(), 4) : 1);
  const job = { url: db.url, seed: opts.seed, count: opts.count };
  // Workers report nothing until they finish; the row count is the progress.
  const progress = setInterval(() => {
    void pool.query<{ n: number }>("SELECT count(*)::int AS n FROM dead_letter").then(
      ({ rows }) => {
        const n = rows[0]?.n ?? 0;
        opts.log(`seed: ${n.toLocaleString("en")} records stored (${Math.round(n / ((performance.now() - started) / 1000))}/s)`);
      },
      () => {},
    );
  }, 10_000);
  let parts: ChunkResult[];
  try {
    parts =
      threads > 1
        ? await Promise.all(Array.from({ length: threads }, (_, offset) => runWorker({ ...job, offset, stride: threads })))
        : [await seedChunks({ ...job, offset: 0, stride: 1 })];
  } finally {
    clearInterval(progress);
  }
  const totals = {
    created: parts.reduce((a, p) => a + p.created, 0),
    duplicates: parts.reduce((a, p) => a + p.duplicates, 0),
    rejected: parts.reduce((a, p) => a + p.rejected, 0),
  };
  const applied = parts.flatMap((p) => p.applied);
  // "Events whose key was already applied": the downstream store has them, so a replay must dedupe them.
  for (let i = 0; i < applied.length; i += 5000) {
    const keys = applied.slice(i, i + 5000);
    await pool.query(
      `INSERT INTO ledger_entry (idempotency_key, kind, entity_key, observed_at, applied_at, origin, dead_letter_id)
       SELECT d.idempotency_key, d.kind, d.entity_key, d.observed_at, d.first_seen_at, 'import', d.id
       FROM dead_letter d WHERE d.kind = 'spatial' AND d.idempotency_key = ANY($1::text[])
       ON CONFLICT DO NOTHING`,
      [keys],
    );
  }
  const secs = (performance.now() - started) / 1000;
  opts.log(
    `seed: ${totals.created.toLocaleString("en")} created, ${totals.duplicates} duplicates, ${totals.rejected} rejected, ` +
      `${applied.length} keys marked already applied, in ${secs.toFixed(1)} s (${Math.round(opts.count / secs)} records/s)`,
  );
  if (accounts.length) {
    opts.log("demo accounts (demo only — refused in production unless REDRIVE_DEMO=1):");
    for (const a of accounts) opts.log(`  ${a.role.padEnd(10)} ${a.email.padEnd(32)} ${a.password}`);
  }
  return totals;
}
