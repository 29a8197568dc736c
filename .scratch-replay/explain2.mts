import pg from "pg";
import { applyMigrations } from "../lib/db/migrate";
import { bulkApproved, runningBatch } from "../tests/replay/fixtures";
import { createDb } from "../lib/db/client";
const admin = new pg.Client({ connectionString: "postgresql://postgres@127.0.0.1:5432/postgres" });
await admin.connect();
await admin.query("DROP DATABASE IF EXISTS rd_explain WITH (FORCE)"); await admin.query("CREATE DATABASE rd_explain");
const url = "postgresql://postgres@127.0.0.1:5432/rd_explain";
await applyMigrations(url);
const db = createDb(url, 4);
const pool = db.pool;
await pool.query(`INSERT INTO "user" (id, name, email, role) VALUES ('a','A','a@x','supervisor'),('b','B','b@x','supervisor')`);
await bulkApproved(pool, { count: 10000, prefix: "afc", kind: "afc", devices: 5000 });
await bulkApproved(pool, { count: 10000, prefix: "geo", kind: "spatial" });
await pool.query("VACUUM ANALYZE dead_letter");
const users = { creator: { userId: "a", email: "a@x", role: "supervisor" }, approver: { userId: "b", email: "b@x", role: "supervisor" } };
const id = await runningBatch(db, users, { filter: {}, sink: { type: "ledger" }, ratePerSecond: 1000000, pageSize: 500 });
await pool.query("VACUUM ANALYZE replay_item");
const sql = process.argv[2] === "lean" ? `EXPLAIN (ANALYZE, BUFFERS) WITH picked AS (
       SELECT i.id FROM replay_item i
       WHERE i.batch_id = $1 AND i.status IN ('pending', 'retry') AND i.run_at <= now()
         AND (i.entity_key IS NULL OR NOT EXISTS (SELECT 1 FROM replay_item e WHERE e.batch_id = i.batch_id AND e.entity_key = i.entity_key AND e.seq < i.seq AND e.status IN ('pending', 'running', 'retry')))
       ORDER BY i.seq LIMIT 500 FOR UPDATE OF i SKIP LOCKED)
     UPDATE replay_item i SET status = 'running', locked_by = 'x', locked_until = now() FROM picked WHERE i.id = picked.id RETURNING i.id` :
`EXPLAIN (ANALYZE, BUFFERS) WITH async AS (SELECT set_config('synchronous_commit', 'off', true)),
     picked AS (
       SELECT i.id
       FROM replay_item i
       WHERE i.batch_id = $1 AND i.status IN ('pending', 'retry') AND i.run_at <= now()
         AND EXISTS (SELECT 1 FROM replay_batch b WHERE b.id = $1 AND b.status = 'running')
         AND (i.entity_key IS NULL OR NOT EXISTS (
           SELECT 1 FROM replay_item e
           WHERE e.batch_id = i.batch_id AND e.entity_key = i.entity_key AND e.seq < i.seq
             AND e.status IN ('pending', 'running', 'retry')))
       ORDER BY i.seq
       LIMIT 500
       FOR UPDATE OF i SKIP LOCKED
     )
     UPDATE replay_item i
     SET status = 'running', locked_by = 'x', locked_until = now() + 30000 * interval '1 millisecond'
     FROM dead_letter d, async
     WHERE i.id = ANY (ARRAY(SELECT id FROM picked)) AND d.id = i.dead_letter_id
     RETURNING i.id::text AS id, i.seq, i.batch_id::text AS batch_id, i.dead_letter_id::text AS dead_letter_id, i.kind,
       i.idempotency_key, i.entity_key, i.observed_at, i.snapshot->'payload' AS payload, i.attempts, i.lease_losses,
       d.status::text AS record_status, d.replay_count, (d.payload IS DISTINCT FROM i.snapshot->'payload') AS edited,
       EXISTS (SELECT 1 FROM ledger_entry l WHERE l.idempotency_key = i.idempotency_key) AS settled`;
for (let k = 0; k < 3; k++) {
const c = await pool.connect(); await c.query("BEGIN");
const r = await c.query(sql, [id]);
if (k === 2) console.log(r.rows.map(x => x["QUERY PLAN"]).join("\n"));
else console.log(r.rows.at(-1)["QUERY PLAN"]);
await c.query("COMMIT"); c.release();
}
await pool.end(); await admin.query("DROP DATABASE rd_explain WITH (FORCE)"); await admin.end();
