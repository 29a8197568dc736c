// `npm run bench:archive-move [-- --db redrive_bench --batch 1000 --pause 25 --settle 10 --settle-extra 0]`
// Measures bounding dead_letter (README "Archive horizon", issue #46 point 4): every settled record (replayed,
// purged) of the bench database moved to dead_letter_archive by the maintenance loop's own step (lib/ops/archive.ts
// runArchive: batches in their own short transactions, SKIP LOCKED, paced), while a list loop and a steady ingest
// run; prints the rate, the worst batch, the worst list latency and the longest lock wait. The seed spreads
// observed_at over 28 days, so its settled records are a month of them; --settle-extra N marks N more of the copy's
// pending and approved records replayed first (the seed settles about a seventh). It runs on a copy of the bench:list
// database (CREATE DATABASE … TEMPLATE), dropped at the end, so bench:list's stays whole.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { applyMigrations } from "../lib/db/migrate";
import { connectionFields } from "../lib/db/pg-adapter";
import { resolveDatabase } from "../lib/db/resolve";
import { withSessionSetup } from "../lib/db/session";
import { runArchive } from "../lib/ops/archive";
import { describeLoad, startLoad } from "./bench/under-load";

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "redrive_bench" },
    batch: { type: "string", default: "1000" },
    pause: { type: "string", default: "25" },
    settle: { type: "string", default: "10" },
    "settle-extra": { type: "string", default: "0" },
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
// FILE_COPY: the default strategy writes the whole copy (19 GB at 10M) through the WAL.
await admin.query(`CREATE DATABASE "${copy}" TEMPLATE "${args.db}" STRATEGY = FILE_COPY`);
say(`copied ${args.db} in ${((performance.now() - t) / 1000).toFixed(0)} s`);
const url = new URL(handle.url);
url.pathname = `/${copy}`;
await applyMigrations(url.toString());
const pool = new pg.Pool(withSessionSetup({ ...connectionFields(url.toString()), max: 6 }));
// DROP DATABASE … WITH (FORCE) below ends sessions the pool may still be closing.
pool.on("error", () => {});
try {
  for (let left = Number(args["settle-extra"]); left > 0;) {
    const r = await pool.query(
      `UPDATE dead_letter SET status = 'replayed' WHERE id IN (
         SELECT id FROM dead_letter WHERE status IN ('pending', 'approved') AND failure_class <> 'poison' ORDER BY id LIMIT $1)`,
      [Math.min(left, 50_000)],
    );
    if (!r.rowCount) break;
    left -= r.rowCount;
  }
  if (Number(args["settle-extra"]) > 0) {
    await pool.query("VACUUM ANALYZE dead_letter");
    say(`marked ${Number(args["settle-extra"]).toLocaleString("en")} more records replayed`);
  }
  const due = await pool.query<{ n: string }>("SELECT count(*)::text AS n FROM dead_letter WHERE status IN ('replayed', 'purged')");
  say(
    `${Number(due.rows[0]!.n).toLocaleString("en")} settled records to move in batches of ${args.batch}, ${args.pause} ms apart; load average ${load()}`,
  );

  const before = startLoad(pool);
  await new Promise((r) => setTimeout(r, Number(args.settle) * 1000));
  say(describeLoad(`before, ${args.settle} s`, await before.stop()));

  const during = startLoad(pool);
  t = performance.now();
  // Every settled record is past the horizon a day after the seed; one run with no budget moves them all.
  const run = await runArchive(pool, new Date(Date.now() + 2 * 86_400_000), 1, {
    batch: Number(args.batch),
    pauseMs: Number(args.pause),
    budgetMs: Number.POSITIVE_INFINITY,
  });
  const moved = run.archived;
  const worstBatch = run.worstBatchMs;
  const secs = (performance.now() - t) / 1000;
  const report = await during.stop();
  say(
    `moved ${moved.toLocaleString("en")} in ${secs.toFixed(0)} s (${Math.round((moved / secs) * 60).toLocaleString("en")} records/min, ${run.batches} batches), worst batch ${worstBatch.toFixed(0)} ms`,
  );
  say(describeLoad("during the move", report));
  const size = await pool.query<{ live: string; archive: string }>(
    "SELECT pg_size_pretty(pg_total_relation_size('dead_letter')) AS live, pg_size_pretty(pg_total_relation_size('dead_letter_archive')) AS archive",
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
