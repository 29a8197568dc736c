import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendAudit } from "../../lib/audit/append";
import { verifyAuditTrail } from "../../lib/audit/verify";
import { closeDb, type Db } from "../../lib/db/client";
import { inTransaction } from "../../lib/db/transaction";
import { setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { runCli } from "./cli-run";

setTestAuthEnv();

let db: Db;

beforeAll(async () => {
  db = await testDb();
  const events = Array.from({ length: 12 }, (_, i) => ({
    actorId: "u-audit",
    actorEmail: "audit@test.local",
    actorRole: "admin",
    action: "test.event",
    targetType: "test",
    targetId: String(i),
    after: { i, nested: { z: 1, a: [true, null, "x"] } },
    requestId: `r${i}`,
  }));
  // Three transactions, so the chain crosses transaction boundaries as it does in production.
  for (const slice of [events.slice(0, 4), events.slice(4, 9), events.slice(9)]) {
    await inTransaction(db.pool, (c) => appendAudit(c, slice, new Date()));
  }
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

/** Changes a stored event behind the trigger's back, as only a superuser could, and puts it back after `fn`. */
async function withTamperedEvent(id: string, fn: () => Promise<void>): Promise<void> {
  const client = await db.pool.connect();
  const original = await client.query(`SELECT actor_role FROM audit_event WHERE id = $1`, [id]);
  try {
    await client.query(`ALTER TABLE audit_event DISABLE TRIGGER audit_event_no_update`);
    await client.query(`UPDATE audit_event SET actor_role = 'supervisor' WHERE id = $1`, [id]);
    await client.query(`ALTER TABLE audit_event ENABLE TRIGGER audit_event_no_update`);
    await fn();
  } finally {
    // Other test files share this run's database: leave the chain intact again.
    await client.query(`ALTER TABLE audit_event DISABLE TRIGGER audit_event_no_update`);
    await client.query(`UPDATE audit_event SET actor_role = $2 WHERE id = $1`, [id, original.rows[0].actor_role]);
    await client.query(`ALTER TABLE audit_event ENABLE TRIGGER audit_event_no_update`);
    client.release();
  }
}

const cli = (args: string[]) => runCli(db.url, args);

describe("the audit trail is append-only in the database", () => {
  it("refuses UPDATE, DELETE and TRUNCATE", async () => {
    await expect(db.pool.query(`UPDATE audit_event SET reason = 'x' WHERE id = (SELECT min(id) FROM audit_event)`)).rejects.toThrow(
      /append-only/,
    );
    await expect(db.pool.query(`DELETE FROM audit_event WHERE id = (SELECT min(id) FROM audit_event)`)).rejects.toThrow(/append-only/);
    await expect(db.pool.query(`TRUNCATE audit_event`)).rejects.toThrow(/append-only/);
  });
});

describe("verifying the chain", () => {
  it("accepts the intact chain, in batches", async () => {
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM audit_event`);
    expect(await verifyAuditTrail(db.pool, { batchSize: 5 })).toMatchObject({ ok: true, verified: rows[0].n });
    expect(await verifyAuditTrail(db.pool)).toMatchObject({ ok: true, verified: rows[0].n });
  });

  it("reports the first broken link, across batch boundaries", async () => {
    const { rows } = await db.pool.query(`SELECT id::text AS id FROM audit_event WHERE action = 'test.event' ORDER BY id OFFSET 6 LIMIT 1`);
    const id: string = rows[0].id;
    await withTamperedEvent(id, async () => {
      const result = await verifyAuditTrail(db.pool, { batchSize: 5 });
      expect(result).toMatchObject({ ok: false, broken: { id, problem: expect.stringContaining("content does not match its hash") } });
    });
    expect((await verifyAuditTrail(db.pool)).ok).toBe(true);
  });

  it("notices the chain's last events deleted (the head says where it ends), and the head only moves forward", async () => {
    const client = await db.pool.connect();
    try {
      const { rows } = await client.query(
        `SELECT row_to_json(a)::text AS row, a.id::text AS id FROM audit_event a ORDER BY a.id DESC LIMIT 1`,
      );
      const last = rows[0] as { row: string; id: string };
      await client.query(`ALTER TABLE audit_event DISABLE TRIGGER audit_event_no_update`);
      await client.query(`DELETE FROM audit_event WHERE id = $1`, [last.id]);
      await client.query(`ALTER TABLE audit_event ENABLE TRIGGER audit_event_no_update`);
      try {
        expect(await verifyAuditTrail(db.pool, { batchSize: 5 })).toMatchObject({
          ok: false,
          broken: { id: last.id, problem: expect.stringContaining("the last events were deleted") },
        });
      } finally {
        await client.query(`INSERT INTO audit_event SELECT * FROM json_populate_record(NULL::audit_event, $1::json)`, [last.row]);
      }
      expect((await verifyAuditTrail(db.pool)).ok).toBe(true);
      // Deleted, then another event appended: it chains from the head, so the gap is a broken link, not hidden.
      await client.query(`ALTER TABLE audit_event DISABLE TRIGGER audit_event_no_update`);
      await client.query(`DELETE FROM audit_event WHERE id = $1`, [last.id]);
      await client.query(`ALTER TABLE audit_event ENABLE TRIGGER audit_event_no_update`);
      try {
        await inTransaction(db.pool, (c) => appendAudit(c, [{ action: "test.after_cut", targetType: "test" }], new Date()));
        expect(await verifyAuditTrail(db.pool)).toMatchObject({
          ok: false,
          broken: { problem: expect.stringContaining("does not match the previous event's hash") },
        });
      } finally {
        await client.query(`INSERT INTO audit_event SELECT * FROM json_populate_record(NULL::audit_event, $1::json)`, [last.row]);
      }
      expect((await verifyAuditTrail(db.pool)).ok).toBe(true);
      await expect(client.query(`UPDATE audit_head SET last_id = last_id - 1`)).rejects.toThrow(/only moves forward/);
      await expect(client.query(`UPDATE audit_head SET last_hash = 'x'`)).rejects.toThrow(/only moves forward/);
      await expect(client.query(`INSERT INTO audit_head (id, last_id, last_hash) VALUES (2, 0, 'x')`)).rejects.toThrow(
        /only moves forward/,
      );
      await expect(client.query(`DELETE FROM audit_head`)).rejects.toThrow(/only moves forward/);
      await expect(client.query(`TRUNCATE audit_head`)).rejects.toThrow(/only moves forward/);
    } finally {
      client.release();
    }
  });

  it("`redrive audit verify` prints ok, or the broken event and exits 1", async () => {
    const ok = await cli(["audit", "verify"]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok: \d+ events verified\nhead: sequence \d+ hash [0-9a-f]{64}\n$/);

    const { rows } = await db.pool.query(`SELECT id::text AS id FROM audit_event WHERE action = 'test.event' ORDER BY id OFFSET 2 LIMIT 1`);
    await withTamperedEvent(rows[0].id, async () => {
      const broken = await cli(["audit", "verify"]);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(new RegExp(`^broken at event ${rows[0].id}: content does not match its hash`));
    });
  });
});

describe("appending from many connections at once", () => {
  it("keeps one chain: each append locks the head, then draws its ids, so ascending ids are the chain's order", async () => {
    const before = await verifyAuditTrail(db.pool);
    expect(before.ok).toBe(true);
    await Promise.all(
      Array.from({ length: 8 }, (_, t) =>
        inTransaction(db.pool, async (c) => {
          // Overlap the transactions, so appends wait for each other's head lock.
          await c.query("SELECT pg_sleep($1)", [(t % 3) * 0.01]);
          await appendAudit(
            c,
            Array.from({ length: 5 }, (_, i) => ({ action: "test.concurrent", targetType: "test", targetId: `${t}-${i}` })),
            new Date(),
          );
        }),
      ),
    );
    const after = await verifyAuditTrail(db.pool);
    expect(after).toMatchObject({ ok: true });
    expect(after.verified - before.verified).toBe(40);
    // One transaction's events are consecutive ids: nobody drew ids between them.
    const { rows } = await db.pool.query<{ target_id: string }>(
      `SELECT target_id FROM audit_event WHERE action = 'test.concurrent' ORDER BY id`,
    );
    const order = rows.map((r) => r.target_id.split("-")[0]);
    for (let i = 0; i < order.length; i += 5) expect(new Set(order.slice(i, i + 5)).size).toBe(1);
  });
});

describe("account CLI", () => {
  it("`token create` prints only the token on stdout; bad input exits non-zero with a message", async () => {
    const email = `cli-${Date.now()}@test.local`;
    const add = await cli(["user", "add", "--email", email, "--role", "producer"]);
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/^[A-Za-z0-9_-]{24}\n$/); // the generated password, alone
    expect(add.stderr).toContain(`created producer ${email}`);

    const token = await cli(["token", "create", "--user", email, "--name", "ci"]);
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^rdv_[A-Za-z0-9_-]{43}\n$/);

    const bad = await cli(["user", "add", "--email", "not-an-email", "--role", "root"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--email: must be an email address/);
    expect(bad.stdout).toBe("");

    const unknown = await cli(["token", "create", "--user", "nobody@test.local"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no user with e-mail nobody@test.local/);
  });
});
