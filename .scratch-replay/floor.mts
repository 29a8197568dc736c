import pg from "pg";
import { applyMigrations } from "../lib/db/migrate";
import { bulkApproved } from "../tests/replay/fixtures";
import { appendAudit } from "../lib/audit/append";
const admin = new pg.Client({ connectionString: "postgresql://postgres@127.0.0.1:5432/postgres" });
await admin.connect();
await admin.query("DROP DATABASE IF EXISTS rd_floor WITH (FORCE)"); await admin.query("CREATE DATABASE rd_floor");
const url = "postgresql://postgres@127.0.0.1:5432/rd_floor";
await applyMigrations(url);
const pool = new pg.Pool({ connectionString: url });
const N = 50000;
await bulkApproved(pool, { count: N, prefix: "afc", kind: "afc", devices: 5000 });
await pool.query("VACUUM ANALYZE dead_letter");
const ids = (await pool.query("SELECT id::text FROM dead_letter ORDER BY id")).rows.map(r => r.id);
let t = performance.now();
for (let i = 0; i < N; i += 500) {
  const chunk = ids.slice(i, i + 500);
  await pool.query(`UPDATE dead_letter d SET status = 'replayed', replay_count = d.replay_count + 1, version = d.version + 1, updated_at = now() WHERE d.id = ANY($1::bigint[])`, [chunk]);
}
let s = (performance.now() - t) / 1000; console.log(`dead_letter status update: ${Math.round(N / s)}/s (${(s * 1e6 / N).toFixed(0)} µs/row)`);
t = performance.now();
for (let i = 0; i < N; i += 500) {
  const c = await pool.connect(); await c.query("BEGIN");
  await appendAudit(c, Array.from({ length: 500 }, (_, k) => ({ actorId: null, actorEmail: "worker:x", actorRole: "system", action: "replay.applied", targetType: "dead_letter", targetId: ids[i + k], after: { batchId: "1", itemId: String(i + k), seq: i + k, idempotencyKey: `afc-${i + k}`, outcome: "applied", attempts: 0 } })), new Date());
  await c.query("COMMIT"); c.release();
}
s = (performance.now() - t) / 1000; console.log(`audit append: ${Math.round(N / s)}/s (${(s * 1e6 / N).toFixed(0)} µs/event)`);
t = performance.now();
for (let i = 0; i < N; i += 500) {
  await pool.query(`INSERT INTO ledger_entry (idempotency_key, kind, origin) SELECT 'k' || g, 'afc', 'replay' FROM generate_series($1::int, $2::int) g`, [i, i + 499]);
}
s = (performance.now() - t) / 1000; console.log(`ledger insert: ${Math.round(N / s)}/s`);
await pool.end(); await admin.query("DROP DATABASE rd_floor WITH (FORCE)"); await admin.end();
