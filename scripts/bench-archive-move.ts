// `npm run bench:archive-move [-- --db redrive_bench --move 100000 --batch 1000]`
// Measures the removal a bounded dead_letter needs (README retention, issue #46 point 4): settled records
// (replayed, purged) moved out of dead_letter in batches — identity, key and timeline fields into a compact
// table, the row deleted (its history rows cascade) — while a list loop and a steady ingest run. It runs on a
// copy of the bench:list database (CREATE DATABASE … TEMPLATE), dropped at the end, so bench:list's stays whole.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { applyMigrations } from "../lib/db/migrate";
import { connectionFields } from "../lib/db/pg-adapter";
import { resolveDatabase } from "../lib/db/resolve";
import { withSessionSetup } from "../lib/db/session";
import { describeLoad, startLoad } from "./bench/under-load";

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "redrive_bench" },
    move: { type: "string", default: "100000" },
    batch: { type: "string", default: "1000" },
    settle: { type: "string", default: "10" },
  },
});
const say = (m: string) => console.log(`[bench:archive-move] ${m}`);
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");

const handle = await resolveDatabase();
const admin = new pg.Client({ ...connectionFields(handle.url), database: "postgres" });
await admin.connect();
const copy = `${args.db}_archive_move`;
await admin.query(`DROP DATABASE IF EXISTS "${copy}" WITH (FORCE)`);
let t = performance.now();
await admin.query(`CREATE DATABASE "${copy}" TEMPLATE "${args.db}"`);
say(`copied ${args.db} in ${((performance.now() - t) / 1000).toFixed(0)} s`);
const url = new URL(handle.url);
url.pathname = `/${copy}`;
await applyMigrations(url.toString());
const pool = new pg.Pool(withSessionSetup({ ...connectionFields(url.toString()), max: 6 }));
try {
  await pool.query(`CREATE TABLE bench_archive (id bigint PRIMARY KEY, kind "DeadLetterKind" NOT NULL, idempotency_key text,
    source text NOT NULL, entity_key text, event_id text, device_id text, status "DeadLetterStatus" NOT NULL,
    failure_class "FailureClass" NOT NULL, reason text NOT NULL, observed_at timestamptz NOT NULL, first_seen_at timestamptz NOT NULL,
    settled_at timestamptz NOT NULL, failure_count int NOT NULL, replay_count int NOT NULL, UNIQUE (kind, idempotency_key))`);
  const due = await pool.query<{ n: string }>("SELECT count(*)::text AS n FROM dead_letter WHERE status IN ('replayed', 'purged')");
  say(
    `${Number(due.rows[0]!.n).toLocaleString("en")} settled records; moving ${Number(args.move).toLocaleString("en")} in batches of ${args.batch}; load average ${load()}`,
  );

  const before = startLoad(pool);
  await new Promise((r) => setTimeout(r, Number(args.settle) * 1000));
  say(describeLoad(`before, ${args.settle} s`, await before.stop()));

  const during = startLoad(pool);
  let moved = 0;
  let worstBatch = 0;
  t = performance.now();
  while (moved < Number(args.move)) {
    const b = performance.now();
    const r = await pool.query(
      `WITH due AS (
         SELECT id FROM dead_letter WHERE status IN ('replayed', 'purged') ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
       ), gone AS (
         DELETE FROM dead_letter d USING due WHERE d.id = due.id
         RETURNING d.id, d.kind, d.idempotency_key, d.source, d.entity_key, d.event_id, d.device_id, d.status, d.failure_class,
           d.reason, d.observed_at, d.first_seen_at, d.updated_at, d.failure_count, d.replay_count
       )
       INSERT INTO bench_archive SELECT * FROM gone`,
      [Number(args.batch)],
    );
    worstBatch = Math.max(worstBatch, performance.now() - b);
    if (!r.rowCount) break;
    moved += r.rowCount;
  }
  const secs = (performance.now() - t) / 1000;
  const report = await during.stop();
  say(
    `moved ${moved.toLocaleString("en")} in ${secs.toFixed(0)} s (${Math.round((moved / secs) * 60).toLocaleString("en")} records/min), worst batch ${worstBatch.toFixed(0)} ms`,
  );
  say(describeLoad("during the move", report));
  const size = await pool.query<{ live: string; archive: string }>(
    "SELECT pg_size_pretty(pg_total_relation_size('dead_letter')) AS live, pg_size_pretty(pg_total_relation_size('bench_archive')) AS archive",
  );
  say(
    `dead_letter with its indexes ${size.rows[0]!.live} (space reused by later writes, not returned); archive ${size.rows[0]!.archive}; load average ${load()}`,
  );
} finally {
  await pool.end();
  await admin.query(`DROP DATABASE IF EXISTS "${copy}" WITH (FORCE)`);
  await admin.end();
  await handle.stop();
}
process.exit(0);
