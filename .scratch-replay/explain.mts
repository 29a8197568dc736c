import pg from "pg";
import { applyMigrations } from "../lib/db/migrate";
import { bulkApproved } from "../tests/replay/fixtures";
const admin = new pg.Client({ connectionString: "postgresql://postgres@127.0.0.1:5432/postgres" });
await admin.connect();
await admin.query("DROP DATABASE IF EXISTS rd_explain WITH (FORCE)"); await admin.query("CREATE DATABASE rd_explain");
const url = "postgresql://postgres@127.0.0.1:5432/rd_explain";
await applyMigrations(url);
const pool = new pg.Pool({ connectionString: url });
await bulkApproved(pool, { count: 20000, prefix: "afc", kind: "afc", devices: 5000 });
await pool.query("VACUUM ANALYZE dead_letter");
const ids = (await pool.query("SELECT id::text FROM dead_letter ORDER BY id LIMIT 500")).rows.map(r => r.id);
const c = await pool.connect();
await c.query("BEGIN");
const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS) UPDATE dead_letter d SET status = u.status, replay_count = u.replay, failure_count = u.failures,
         failure_class = u.cls, class_reason = u.cls_reason, reason = coalesce(u.reason, d.reason),
         reason_group = coalesce(u.rgroup, d.reason_group),
         last_failed_at = CASE WHEN u.failures > d.failure_count THEN $9 ELSE d.last_failed_at END,
         version = d.version + 1, updated_at = $9
       FROM unnest($1::bigint[], $2::"DeadLetterStatus"[], $3::int[], $4::int[], $5::"FailureClass"[], $6::text[],
         $7::text[], $8::text[]) AS u(id, status, replay, failures, cls, cls_reason, reason, rgroup)
       WHERE d.id = u.id`, [ids, ids.map(() => "replayed"), ids.map(() => 1), ids.map(() => 1), ids.map(() => "transient"), ids.map(() => null), ids.map(() => null), ids.map(() => null), new Date()]);
console.log(r.rows.map(x => x["QUERY PLAN"]).join("\n"));
await c.query("ROLLBACK"); c.release();
await pool.end(); await admin.query("DROP DATABASE rd_explain WITH (FORCE)"); await admin.end();
