import pg from "pg";
import { createDb } from "../lib/db/client";
import { applyMigrations } from "../lib/db/migrate";
import { createBatch } from "../lib/replay/batches";
import { applyBatchAction } from "../lib/replay/control";
import { CreateBatchBody } from "../lib/replay/schemas";
import { bulkApproved } from "../tests/replay/fixtures";
import { benchGraphile } from "./bench/graphile-reference";
const N = Number(process.env.N ?? 100000);
const admin = new pg.Client({ connectionString: "postgresql://postgres@127.0.0.1:5432/postgres" }); await admin.connect();
await admin.query("DROP DATABASE IF EXISTS prof_floor WITH (FORCE)"); await admin.query("CREATE DATABASE prof_floor");
const url = "postgresql://postgres@127.0.0.1:5432/prof_floor";
await applyMigrations(url);
const db = createDb(url, 6);
await db.pool.query(`INSERT INTO "user" (id, name, email, role) VALUES ('a','A','a@x','supervisor'),('b','B','b@x','supervisor')`);
await bulkApproved(db.pool, { count: N / 2, prefix: "afc", kind: "afc", devices: 5000 });
await bulkApproved(db.pool, { count: N / 2, prefix: "geo", kind: "spatial" });
await db.pool.query("VACUUM ANALYZE dead_letter");
const u = { creator: { userId: "a", email: "a@x", role: "supervisor" }, approver: { userId: "b", email: "b@x", role: "supervisor" } } as const;
const input = CreateBatchBody.parse({ filter: {}, sink: { type: "ledger" }, ratePerSecond: 1_000_000, pageSize: 1000 });
const { id } = await createBatch(db.pool, input, u.creator as any, { now: new Date() });
await applyBatchAction(db.pool, id, "approve", u.approver as any, { now: new Date() });
await db.pool.query("VACUUM ANALYZE replay_item");
await db.pool.query(`CREATE PROCEDURE floor_drain(b bigint, page int) LANGUAGE plpgsql AS $$
DECLARE lo int := 0; n int; ids bigint[]; dls bigint[];
BEGIN
  LOOP
    SELECT array_agg(id ORDER BY id), array_agg(dead_letter_id ORDER BY dead_letter_id) INTO ids, dls FROM replay_item WHERE batch_id = b AND seq > lo AND seq <= lo + page;
    EXIT WHEN ids IS NULL;
    INSERT INTO ledger_entry (idempotency_key, kind, entity_key, observed_at, applied_at, batch_id, item_id, dead_letter_id, origin)
      SELECT idempotency_key, kind, entity_key, observed_at, now(), b, id, dead_letter_id, 'replay' FROM replay_item WHERE id = ANY(ids) ORDER BY idempotency_key ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    INSERT INTO entity_state (kind, entity_key, observed_at, idempotency_key, payload, updated_at)
      SELECT DISTINCT ON (kind, entity_key) kind, entity_key, observed_at, idempotency_key, snapshot->'payload', now() FROM replay_item WHERE id = ANY(ids) AND entity_key IS NOT NULL ORDER BY kind, entity_key, observed_at DESC
      ON CONFLICT (kind, entity_key) DO UPDATE SET observed_at = EXCLUDED.observed_at, idempotency_key = EXCLUDED.idempotency_key, payload = EXCLUDED.payload, updated_at = EXCLUDED.updated_at WHERE entity_state.observed_at < EXCLUDED.observed_at;
    UPDATE replay_item SET status = 'applied', submitted_at = now(), finished_at = now(), attempts = 0 WHERE id = ANY(ids);
    UPDATE dead_letter SET status = 'replayed', replay_count = replay_count + 1, version = version + 1, updated_at = now() WHERE id = ANY(dls);
    UPDATE replay_batch SET applied_count = applied_count + n WHERE id = b;
    COMMIT;
    lo := lo + page;
  END LOOP;
END $$`);
if (process.env.KEEP) { console.log("batch", id); process.exit(0); }
const t0 = performance.now();
await db.pool.query("CALL floor_drain($1, 1000)", [id]);
const s = (performance.now() - t0) / 1000;
console.log(`floor (SQL only, no claim/audit/JS): ${N} in ${s.toFixed(2)} s = ${Math.round(N / s)}/s`);
const { rows } = await db.pool.query("SELECT applied_count FROM replay_batch WHERE id=$1", [id]); console.log("applied", rows[0]);
await db.pool.query("TRUNCATE dead_letter, replay_item, replay_batch, ledger_entry, entity_state CASCADE");
const ref = await benchGraphile(url, N, (m) => console.log(m));
await db.pool.end(); await admin.query("DROP DATABASE IF EXISTS prof_floor WITH (FORCE)"); await admin.end(); process.exit(0);
