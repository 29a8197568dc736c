import type { Db } from "../db/client";
import { ingestStream } from "../dead-letters/ingest/pipeline";
import type { RecordText } from "../dead-letters/ingest/split";
import { generateAfc } from "./generate-afc";
import { generateSpatial } from "./generate-spatial";
import { Rng } from "./rng";

// Deterministic demo data: the same --seed and --count give the same records. Records go through the real
// ingest pipeline (validation, repair, classification, hashing, audit), so the demo shows what production
// would store. Chunks have their own RNG stream, so a record does not depend on how many came before it in
// other chunks.

export const DEMO_BASE = Date.UTC(2026, 10, 1); // 2026-11-01
const SPAN_MS = 28 * 24 * 3600 * 1000;
const CHUNK = 10_000;

export interface SeedOptions {
  count: number;
  seed: number;
  reset?: boolean;
  log: (msg: string) => void;
}

function* demoRecords(seed: number, count: number, applied: string[]): Generator<RecordText> {
  for (let chunk = 0; chunk * CHUNK < count; chunk++) {
    const rng = new Rng(seed * 1_000_003 + chunk);
    const end = Math.min(count, (chunk + 1) * CHUNK);
    for (let i = chunk * CHUNK; i < end; i++) {
      if (rng.chance(0.55)) {
        const g = generateSpatial(rng, i, DEMO_BASE, SPAN_MS);
        if (g.applied) applied.push(g.envelope.idempotency_key as string);
        yield { index: i, text: JSON.stringify(g.envelope) };
      } else {
        yield { index: i, text: generateAfc(rng, i, DEMO_BASE, SPAN_MS).text };
      }
    }
  }
}

async function* asAsync<T>(it: Iterable<T>): AsyncGenerator<T> {
  yield* it;
}

export async function seedDemo(db: Db, opts: SeedOptions): Promise<{ created: number; duplicates: number; rejected: number }> {
  const { pool } = db;
  if (opts.reset) {
    await pool.query("TRUNCATE dead_letter, failure_attempt, replay_item, replay_batch, ledger_entry, entity_state RESTART IDENTITY CASCADE");
    opts.log("reset: removed dead letters, replay batches and the ledger (the audit trail is append-only and stays)");
  }
  const { seedDemoAccounts } = await import("../auth/users");
  const accounts = await seedDemoAccounts(db);

  const started = performance.now();
  const applied: string[] = [];
  const totals = { created: 0, duplicates: 0, rejected: 0 };
  let lastLog = started;
  const actor = { id: null, email: "demo-seed", role: "system" };
  for await (const results of ingestStream(pool, asAsync(demoRecords(opts.seed, opts.count, applied)), {
    actor, requestId: `seed-${opts.seed}`, batchSize: 1000,
  })) {
    for (const r of results) {
      if (r.status === "created") totals.created++;
      else if (r.status === "duplicate") totals.duplicates++;
      else totals.rejected++;
    }
    const now = performance.now();
    if (now - lastLog > 5000) {
      const done = totals.created + totals.duplicates + totals.rejected;
      opts.log(`seed: ${done.toLocaleString("en")} / ${opts.count.toLocaleString("en")} records (${Math.round(done / ((now - started) / 1000))}/s)`);
      lastLog = now;
    }
  }
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
