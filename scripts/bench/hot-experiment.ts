// One-off experiment for #30 point 2 (not a benchmark of record): the write floor as the schema is, then with
// dead_letter's indexes that hold `status` or `updated_at` dropped and fillfactor 85, so the record's status update
// can be HOT. Prints both rates and pg_stat_user_tables' HOT counts. Uses its own database, dropped at the end.
//   npx tsx --import ./bin/server-side.mjs scripts/bench/hot-experiment.ts [records]
import { UNSCOPED } from "../../lib/scope/record-scope";
import { readFileSync } from "node:fs";
import pg from "pg";
import { createDb } from "../../lib/db/client";
import { applyMigrations } from "../../lib/db/migrate";
import { createBatch } from "../../lib/replay/batch/create-batch";
import { applyBatchAction } from "../../lib/replay/batch/apply-batch-action";
import { CreateBatchBody } from "../../lib/replay/batch/batch-schemas";
import { bulkApproved } from "../../tests/replay/fixtures";
import { benchWriteFloor } from "./write-floor";

const RECORDS = Number(process.argv[2] ?? 10000);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const admin = new pg.Client({ connectionString: base });
await admin.connect();
const name = `redrive_bench_hot_${process.pid}`;
await admin.query(`CREATE DATABASE "${name}"`);
const url = new URL(base);
url.pathname = `/${name}`;
await applyMigrations(url.toString());
const db = createDb(url.toString(), 4);
await db.pool.query(
  `INSERT INTO "user" (id, name, email, role) VALUES ('hot-a', 'A', 'a@hot.local', 'supervisor'), ('hot-b', 'B', 'b@hot.local', 'supervisor')`,
);
const creator = { scope: UNSCOPED, userId: "hot-a", email: "a@hot.local", role: "supervisor" as const };
const approver = { scope: UNSCOPED, userId: "hot-b", email: "b@hot.local", role: "supervisor" as const };

async function round(label: string): Promise<void> {
  await db.pool.query(
    "TRUNCATE dead_letter, failure_attempt, replay_batch, replay_item, ledger_entry, entity_state RESTART IDENTITY CASCADE",
  );
  await bulkApproved(db.pool, { count: RECORDS / 2, prefix: "afc", kind: "afc", devices: 5000 });
  await bulkApproved(db.pool, { count: RECORDS / 2, prefix: "geo", kind: "spatial" });
  const input = CreateBatchBody.parse({ filter: {}, sink: { type: "ledger" }, ratePerSecond: 1_000_000, pageSize: 500 });
  const { id } = await createBatch(db.pool, input, creator, { now: new Date() });
  await applyBatchAction(db.pool, id, "approve", approver, { now: new Date() });
  await db.pool.query("VACUUM ANALYZE dead_letter");
  await db.pool.query("VACUUM ANALYZE replay_item");
  const before = await db.pool.query<{ upd: string; hot: string }>(
    "SELECT n_tup_upd::text AS upd, n_tup_hot_upd::text AS hot FROM pg_stat_user_tables WHERE relname = 'dead_letter'",
  );
  const r = await benchWriteFloor(db.pool, id, RECORDS, 2, null);
  await new Promise((res) => setTimeout(res, 700)); // statistics are flushed to the shared counters at most every 500 ms
  const after = await db.pool.query<{ upd: string; hot: string }>(
    "SELECT n_tup_upd::text AS upd, n_tup_hot_upd::text AS hot FROM pg_stat_user_tables WHERE relname = 'dead_letter'",
  );
  const upd = Number(after.rows[0]?.upd) - Number(before.rows[0]?.upd);
  const hot = Number(after.rows[0]?.hot) - Number(before.rows[0]?.hot);
  console.log(`${label}: ${RECORDS} items in ${r.seconds} s = ${r.perSecond}/s; dead_letter updates ${upd}, HOT ${hot} (load ${load()})`);
}

try {
  await round("write floor, schema as is");
  const { rows } = await db.pool.query<{ indexname: string }>(
    `SELECT indexname FROM pg_indexes WHERE tablename = 'dead_letter' AND (indexdef ILIKE '%status%' OR indexdef ILIKE '%updated_at%')`,
  );
  for (const r of rows) await db.pool.query(`DROP INDEX "${r.indexname}"`);
  await db.pool.query("ALTER TABLE dead_letter SET (fillfactor = 85)");
  await round(`write floor, without ${rows.map((r) => r.indexname).join(", ")}, fillfactor 85`);
} finally {
  await db.pool.end();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}
process.exit(0);
