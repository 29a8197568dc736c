// `npm run bench:migration [-- --db redrive_bench --count 1000000 --settle 10 --keep]`
// An online migration (scripts/bench/online-migration: a derived tsvector column with its GIN index on dead_letter,
// added nullable, filled by a trigger and a batched backfill, indexed CONCURRENTLY) applied through the real runner
// to the bench:list database while a list loop and a steady ingest run: the worst list latency, the worst ingest
// batch and the longest lock wait of any session, before and during. The change is undone at the end (unless
// --keep), so the database stays bench:list's.
import { cp, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { applyMigrations } from "../lib/db/migrate";
import { MIGRATIONS_DIR } from "../lib/db/migration-files";
import { connectionFields } from "../lib/db/pg-adapter";
import { resolveDatabase } from "../lib/db/resolve";
import { withSessionSetup } from "../lib/db/session";
import { describeLoad, startLoad } from "./bench/under-load";

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "redrive_bench" },
    count: { type: "string", default: "1000000" },
    settle: { type: "string", default: "10" },
    keep: { type: "boolean", default: false },
  },
});
const say = (m: string) => console.log(`[bench:migration] ${m}`);
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");
const DEMO = join(import.meta.dirname, "bench/online-migration");

const handle = await resolveDatabase();
const url = new URL(handle.url);
url.pathname = `/${args.db}`;
const pool = new pg.Pool(withSessionSetup({ ...connectionFields(url.toString()), max: 6 }));
const have = Number((await pool.query<{ n: string }>("SELECT count(*)::text AS n FROM dead_letter")).rows[0]?.n ?? 0);
if (have < Number(args.count) * 0.99) {
  say(`${args.db} holds ${have} dead letters; seed it first: npm run bench:list -- --db ${args.db} --count ${args.count} --seed-only`);
  process.exit(1);
}

// The project's migrations plus the demo one, as the runner would see a release that adds it.
const dir = await mkdtemp(join(tmpdir(), "bench-migration-"));
for (const e of await readdir(MIGRATIONS_DIR)) await symlink(join(MIGRATIONS_DIR, e), join(dir, e));
const [demo] = await readdir(DEMO);
await cp(join(DEMO, demo!), join(dir, demo!), { recursive: true });

say(`${have.toLocaleString("en")} dead letters in ${args.db}; load average ${load()}`);
const before = startLoad(pool);
await new Promise((r) => setTimeout(r, Number(args.settle) * 1000));
say(describeLoad(`before, ${args.settle} s`, await before.stop()));

const during = startLoad(pool);
const t0 = performance.now();
// A long backfill reports as it goes: cut off (it resumes on the next run), the figures so far are not lost.
const interim = setInterval(() => {
  say(
    describeLoad(`during the migration, first ${((performance.now() - t0) / 1000).toFixed(0)} s; load average ${load()}`, during.sofar()),
  );
}, 60_000);
const applied = await applyMigrations(url.toString(), dir);
clearInterval(interim);
const secs = (performance.now() - t0) / 1000;
const report = await during.stop();
const progress = await pool.query<{ rows: string; secs: number }>(
  `SELECT rows::text AS rows, extract(epoch FROM finished_at - started_at)::float8 AS secs
   FROM redrive_migrate.backfill WHERE name = 'dead_letter_reason_doc'`,
);
const bf = progress.rows[0];
say(
  `applied ${applied.join(", ")} in ${secs.toFixed(0)} s; its backfill: ${Number(bf?.rows ?? 0).toLocaleString("en")} rows in ` +
    `${(bf?.secs ?? 0).toFixed(0)} s since it first started (earlier runs cut off included)`,
);
say(describeLoad("during the migration", report));
say(`load average ${load()}`);

if (!args.keep) {
  say("undoing the change (bench database only)");
  await pool.query('DROP INDEX CONCURRENTLY IF EXISTS "dead_letter_reason_doc_idx"');
  await pool.query("SET lock_timeout = '2s'");
  await pool.query('DROP TRIGGER IF EXISTS dead_letter_reason_doc_fill ON "dead_letter"');
  await pool.query('ALTER TABLE "dead_letter" DROP COLUMN IF EXISTS "reason_doc"');
  await pool.query("DROP FUNCTION IF EXISTS dead_letter_reason_doc_fill(), dead_letter_reason_doc(text, text)");
  await pool.query("DELETE FROM _prisma_migrations WHERE migration_name = $1", [demo]);
  await pool.query("DELETE FROM redrive_migrate.backfill WHERE name = 'dead_letter_reason_doc'");
}
await rm(dir, { recursive: true, force: true });
await pool.end();
await handle.stop();
process.exit(0);
