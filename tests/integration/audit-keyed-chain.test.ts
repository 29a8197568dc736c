import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { appendAudit, type AuditInput } from "../../lib/audit/append";
import { auditHash, CHAIN_KEYED, GENESIS_HASH, KEY_ROTATED } from "../../lib/audit/chain";
import { parseCheckpoint, signCheckpoint, type Checkpoint } from "../../lib/audit/checkpoint";
import { auditKeyring, type AuditKeyring } from "../../lib/audit/keys";
import { AUDIT_EVENT_COLUMNS, type AuditEventRow } from "../../lib/audit/row";
import { toStored, verifyAuditTrail } from "../../lib/audit/verify";
import { closeDb, type Db } from "../../lib/db/client";
import { inTransaction } from "../../lib/db/transaction";
import { setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { runCli } from "./cli-run";

// What a database superuser can do to the audit chain without the audit key, and what verify says about it. Each
// test rewrites its own database (testDb), since the attacks leave the chain broken on purpose.

setTestAuthEnv();

const SECRET_A = "audit-key-A-0123456789abcdefghijklmnopqrstuvwxyz";
const SECRET_B = "audit-key-B-0123456789abcdefghijklmnopqrstuvwxyz";
const SECRET_C = "audit-key-C-0123456789abcdefghijklmnopqrstuvwxyz";
const A = auditKeyring(SECRET_A);
const dbs: Db[] = [];
const dir = mkdtempSync(join(tmpdir(), "redrive-audit-"));

afterAll(async () => {
  for (const db of dbs) await db.pool.end();
  await closeDb();
});

const event = (i: number): AuditInput => ({
  actorId: "u-audit",
  actorEmail: "audit@test.local",
  actorRole: "analyst",
  action: "test.event",
  targetType: "test",
  targetId: String(i),
  after: { i, nested: { z: 1, a: [true, null, "x"] } },
  requestId: `r${i}`,
});

/** A fresh database with `n` events appended under `keys`, in transactions of three. */
async function chainOf(n: number, keys: AuditKeyring = A): Promise<Db> {
  const db = await testDb();
  dbs.push(db);
  await append(db, n, keys);
  return db;
}

async function append(db: Db, n: number, keys: AuditKeyring, from = 0): Promise<void> {
  const events = Array.from({ length: n }, (_, i) => event(from + i));
  for (let i = 0; i < events.length; i += 3) await inTransaction(db.pool, (c) => appendAudit(c, events.slice(i, i + 3), new Date(), keys));
}

const ids = async (db: Db): Promise<string[]> =>
  (await db.pool.query<{ id: string }>(`SELECT id::text AS id FROM audit_event ORDER BY audit_event.id`)).rows.map((r) => r.id);

/** As a superuser: triggers off for the length of `fn`, in one transaction. */
async function asSuperuser(db: Db, fn: (q: (sql: string, values?: unknown[]) => Promise<unknown>) => Promise<void>): Promise<void> {
  await inTransaction(db.pool, async (c) => {
    await c.query(`ALTER TABLE audit_event DISABLE TRIGGER USER`);
    await c.query(`ALTER TABLE audit_head DISABLE TRIGGER USER`);
    await fn((sql, values) => c.query(sql, values));
    await c.query(`ALTER TABLE audit_event ENABLE TRIGGER USER`);
    await c.query(`ALTER TABLE audit_head ENABLE TRIGGER USER`);
  });
}

/**
 * The re-chaining attack: edit event `target`, recompute its hash and every later one with the chain's public
 * function (SHA-256 over the canonical content), move audit_head to the new last hash. `keyId` is what the
 * attacker writes in the rewritten events' key_id: null (plain hashes) or the key id they found in the table.
 */
async function rechain(db: Db, target: string, keyId: "keep" | null, from: string = target, to?: string): Promise<void> {
  await asSuperuser(db, async (q) => {
    await q(`UPDATE audit_event SET actor_role = 'admin', reason = 'approved by the board' WHERE id = $1`, [target]);
    const range = to === undefined ? [from] : [from, to];
    const { rows } = (await q(
      `SELECT ${AUDIT_EVENT_COLUMNS} FROM audit_event a WHERE a.id >= $1 ${to === undefined ? "" : "AND a.id <= $2"} ORDER BY a.id`,
      range,
    )) as {
      rows: AuditEventRow[];
    };
    const before = (await q(`SELECT hash FROM audit_event WHERE id < $1 ORDER BY id DESC LIMIT 1`, [from])) as { rows: { hash: string }[] };
    let prev = before.rows[0]?.hash ?? GENESIS_HASH;
    let last = "0";
    for (const e of rows.map(toStored)) {
      const hash = auditHash(prev, e);
      await q(`UPDATE audit_event SET prev_hash = $2, hash = $3, key_id = $4 WHERE id = $1`, [
        e.id,
        prev,
        hash,
        keyId === "keep" ? e.keyId : null,
      ]);
      prev = hash;
      last = e.id;
    }
    // Moved to the rewritten end, unless the rewrite stopped short of it.
    if (to === undefined)
      await q(`UPDATE audit_head SET last_id = $1, last_hash = $2, key_id = $3 WHERE id = 1`, [
        last,
        prev,
        keyId === "keep" ? A.current.id : null,
      ]);
  });
}

/** The tail cut: delete events after `keep` and move the head back to it, as if they had never been. */
async function cutTail(db: Db, keep: string): Promise<void> {
  await asSuperuser(db, async (q) => {
    await q(`DELETE FROM audit_event WHERE id > $1`, [keep]);
    await q(`UPDATE audit_head SET (last_id, last_hash, key_id) = (SELECT id, hash, key_id FROM audit_event WHERE id = $1) WHERE id = 1`, [
      keep,
    ]);
  });
}

const cli = (db: Db, args: string[], env: Record<string, string> = {}) =>
  runCli(db.url, args, { env: { REDRIVE_AUDIT_KEY: SECRET_A, ...env }, nodeArgs: ["--import", "./bin/server-side.mjs"] });

async function checkpointOf(db: Db): Promise<Checkpoint> {
  const result = await verifyAuditTrail(db.pool, { keys: A });
  if (!result.ok) throw new Error(`chain broken before the test: ${result.broken.problem}`);
  return signCheckpoint(result.head, A.current, new Date());
}

describe("the superuser re-chaining attack", () => {
  it("is detected when the rewritten events keep their key ids: their MACs need the key", async () => {
    const db = await chainOf(10);
    const target = (await ids(db))[4]!;
    expect(await verifyAuditTrail(db.pool, { keys: A, batchSize: 4 })).toMatchObject({ ok: true, verified: 10 });
    await rechain(db, target, "keep");
    expect(await verifyAuditTrail(db.pool, { keys: A, batchSize: 4 })).toMatchObject({
      ok: false,
      verified: 4,
      broken: { id: target, problem: expect.stringContaining("content does not match its hash") },
    });
    const verify = await cli(db, ["audit", "verify"]);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toMatch(new RegExp(`^broken at event ${target}: content does not match its hash`));
  });

  it("is detected when the rewritten events claim to be unkeyed, from the edit on or from the very first event", async () => {
    const db = await chainOf(10);
    const all = await ids(db);
    await rechain(db, all[4]!, null);
    expect(await verifyAuditTrail(db.pool, { keys: A })).toMatchObject({
      ok: false,
      broken: { id: all[4], problem: expect.stringContaining("carries no MAC but follows events MAC'd") },
    });

    // The whole chain rewritten as if it had never been keyed: consistent SHA-256 links from genesis to the head.
    const whole = await chainOf(10);
    const wholeIds = await ids(whole);
    await rechain(whole, wholeIds[4]!, null, wholeIds[0]);
    expect(await verifyAuditTrail(whole.pool, { keys: A })).toMatchObject({
      ok: false,
      broken: { id: wholeIds[9], problem: expect.stringContaining("the chain's last event carries no MAC") },
    });
  });
});

describe("checkpoints", () => {
  it("show a cut tail with the head moved back, which the chain alone cannot", async () => {
    const db = await chainOf(9);
    const all = await ids(db);
    const checkpoint = await checkpointOf(db);
    expect(checkpoint.sequence).toBe(Number(all[8]));
    expect(await verifyAuditTrail(db.pool, { keys: A, checkpoint })).toMatchObject({ ok: true, head: { sequence: all[8] } });

    await cutTail(db, all[5]!);
    // Consistent in itself: every link and MAC holds, and the head points at the last event left.
    expect(await verifyAuditTrail(db.pool, { keys: A })).toMatchObject({ ok: true, verified: 6, head: { sequence: all[5] } });
    expect(await verifyAuditTrail(db.pool, { keys: A, checkpoint })).toMatchObject({
      ok: false,
      broken: { id: all[8], problem: expect.stringContaining(`the chain ends at event ${all[5]} but the checkpoint`) },
    });

    // Redrive appends again after the cut: the head passes the checkpoint's sequence, but its event is gone.
    await append(db, 4, A, 100);
    expect(await verifyAuditTrail(db.pool, { keys: A })).toMatchObject({ ok: true, verified: 10 });
    expect(await verifyAuditTrail(db.pool, { keys: A, checkpoint })).toMatchObject({
      ok: false,
      broken: { id: all[8], problem: expect.stringContaining("not in the chain any more") },
    });
  });

  it("show an event rewritten before the checkpoint even by someone holding the key", async () => {
    const db = await chainOf(6);
    const checkpoint = await checkpointOf(db);
    const target = (await ids(db))[2]!;
    // Someone holding the key (a leaked one) can rewrite from an event on and MAC it all again: modelled here by
    // cutting from that event and letting Redrive append with the key. Only the checkpoint still knows.
    await asSuperuser(db, async (q) => {
      await q(`DELETE FROM audit_event WHERE id >= $1`, [target]);
      await q(
        `UPDATE audit_head SET (last_id, last_hash, key_id) = (SELECT id, hash, key_id FROM audit_event WHERE id < $1 ORDER BY id DESC LIMIT 1)`,
        [target],
      );
    });
    await append(db, 4, A, 50);
    expect(await verifyAuditTrail(db.pool, { keys: A })).toMatchObject({ ok: true });
    expect(await verifyAuditTrail(db.pool, { keys: A, checkpoint })).toMatchObject({
      ok: false,
      broken: { id: String(checkpoint.sequence), problem: expect.stringContaining("not in the chain any more") },
    });
  });

  it("`redrive audit checkpoint` writes a signed head that `verify --since-checkpoint` checks; a cut fails it", async () => {
    const db = await chainOf(7);
    const all = await ids(db);
    const file = join(dir, "cut.json");
    const written = await cli(db, ["audit", "checkpoint", "--out", file]);
    expect(written.code).toBe(0);
    expect(written.stdout).toBe("");
    const parsed = parseCheckpoint(readFileSync(file, "utf8"));
    expect(parsed).toMatchObject({ ok: true, checkpoint: { sequence: Number(all[6]), keyId: A.current.id } });
    expect(written.stderr).toContain(`checkpoint: sequence ${all[6]} hash `);

    const toStdout = await cli(db, ["audit", "checkpoint"]);
    expect(toStdout.code).toBe(0);
    expect(parseCheckpoint(toStdout.stdout)).toMatchObject({ ok: true });

    const ok = await cli(db, ["audit", "verify", "--since-checkpoint", file]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      new RegExp(
        `^ok: 7 events verified\\nhead: sequence ${all[6]} hash [0-9a-f]{64}\\nextends checkpoint: sequence ${all[6]} hash [0-9a-f]{64} \\(`,
      ),
    );

    await cutTail(db, all[3]!);
    const plain = await cli(db, ["audit", "verify"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(`head: sequence ${all[3]} hash`);
    const cut = await cli(db, ["audit", "verify", "--since-checkpoint", file]);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toMatch(
      new RegExp(`^broken at event ${all[6]}: the chain ends at event ${all[3]} but the checkpoint .* events were cut`),
    );
  });

  it("refuses bad input: no file, not a checkpoint, an altered one, an --out nowhere", async () => {
    const db = await chainOf(3);
    const missing = await cli(db, ["audit", "verify", "--since-checkpoint", join(dir, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--since-checkpoint: .*nope\.json: no such file/);

    const garbage = join(dir, "garbage.json");
    writeFileSync(garbage, '{"sequence": "x"}');
    const notOne = await cli(db, ["audit", "verify", "--since-checkpoint", garbage]);
    expect(notOne.code).toBe(2);
    expect(notOne.stderr).toMatch(/is not an audit checkpoint: .*sequence/);

    const altered = join(dir, "altered.json");
    const real = await checkpointOf(db);
    writeFileSync(altered, JSON.stringify({ ...real, sequence: real.sequence - 1 }));
    const forged = await cli(db, ["audit", "verify", "--since-checkpoint", altered]);
    expect(forged.code).toBe(1);
    expect(forged.stdout).toMatch(/the checkpoint: its signature does not match/);

    const nowhere = await cli(db, ["audit", "checkpoint", "--out", join(dir, "no-such-dir", "c.json")]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/--out: .*no-such-dir: no such directory/);
  });
});

describe("audit keys", () => {
  it("a rotation is an event MAC'd by the old key; the chain verifies with both keys, not without the old one", async () => {
    const db = await chainOf(4);
    const rotated = auditKeyring(SECRET_B, [SECRET_A]);
    await append(db, 3, rotated, 10);
    const { rows } = await db.pool.query<{ action: string; key_id: string; target_id: string }>(
      `SELECT action, key_id, target_id FROM audit_event ORDER BY id`,
    );
    expect(rows.map((r) => r.key_id)).toEqual([...Array(5).fill(A.current.id), ...Array(3).fill(rotated.current.id)]);
    expect(rows[4]).toMatchObject({ action: KEY_ROTATED, key_id: A.current.id, target_id: rotated.current.id });
    expect(await verifyAuditTrail(db.pool, { keys: rotated })).toMatchObject({ ok: true, verified: 8, notes: [] });
    expect(await verifyAuditTrail(db.pool, { keys: auditKeyring(SECRET_B) })).toMatchObject({
      ok: false,
      broken: { problem: expect.stringContaining(`MAC'd with key ${A.current.id}, which this verifier does not hold`) },
    });
    const cliOk = await cli(db, ["audit", "verify"], { REDRIVE_AUDIT_KEY: SECRET_B, REDRIVE_AUDIT_RETIRED_KEYS: SECRET_A });
    expect(cliOk.code).toBe(0);
    // A process still on the old key cannot continue a chain that moved on.
    await expect(inTransaction(db.pool, (c) => appendAudit(c, [event(99)], new Date(), A))).rejects.toThrow(/does not hold/);
    // Nor can a new key take over without the old one to record the rotation.
    await expect(inTransaction(db.pool, (c) => appendAudit(c, [event(99)], new Date(), auditKeyring(SECRET_C)))).rejects.toThrow(
      /REDRIVE_AUDIT_RETIRED_KEYS/,
    );
  });

  it("a wrong key fails verification, naming the key the chain needs", async () => {
    const db = await chainOf(3);
    expect(await verifyAuditTrail(db.pool, { keys: auditKeyring(SECRET_C) })).toMatchObject({
      ok: false,
      verified: 0,
      broken: { problem: expect.stringContaining(`MAC'd with key ${A.current.id}, which this verifier does not hold`) },
    });
    const wrong = await cli(db, ["audit", "verify"], { REDRIVE_AUDIT_KEY: SECRET_C });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/does not hold/);
  });

  it("events from before keys verify by their SHA-256; the first keyed event anchors them", async () => {
    const db = await testDb();
    dbs.push(db);
    // An upgraded database: events hashed as before, no key ids.
    let prev = GENESIS_HASH;
    for (let i = 1; i <= 3; i++) {
      const content = { ...event(i), at: new Date(Date.UTC(2026, 10, i)).toISOString() };
      const full = {
        actorId: null,
        actorEmail: null,
        actorRole: null,
        targetId: null,
        before: null,
        after: null,
        diff: null,
        reason: null,
        requestId: null,
        ...content,
      };
      const hash = auditHash(prev, full);
      await db.pool.query(
        `INSERT INTO audit_event (id, at, actor_id, actor_email, actor_role, action, target_type, target_id, after, request_id, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          i,
          full.at,
          full.actorId,
          full.actorEmail,
          full.actorRole,
          full.action,
          full.targetType,
          full.targetId,
          full.after,
          full.requestId,
          prev,
          hash,
        ],
      );
      await db.pool.query(`UPDATE audit_head SET last_id = $1, last_hash = $2 WHERE id = 1`, [i, hash]);
      prev = hash;
    }
    await db.pool.query(`SELECT setval('audit_event_id_seq', 3)`);
    // Unkeyed to its end, it proves nothing against whoever can write the table.
    expect(await verifyAuditTrail(db.pool, { keys: A })).toMatchObject({
      ok: false,
      broken: { id: "3", problem: expect.stringContaining("last event carries no MAC") },
    });
    // `audit checkpoint` keys it first, then signs the keyed head.
    const cp = await cli(db, ["audit", "checkpoint"]);
    expect(cp.code).toBe(0);
    const { rows } = await db.pool.query(`SELECT id::text AS id, action, key_id, target_id FROM audit_event WHERE id > 3`);
    expect(rows).toEqual([{ id: "4", action: CHAIN_KEYED, key_id: A.current.id, target_id: A.current.id }]);
    expect(parseCheckpoint(cp.stdout)).toMatchObject({ ok: true, checkpoint: { sequence: 4 } });
    expect(await verifyAuditTrail(db.pool, { keys: A })).toMatchObject({ ok: true, verified: 4 });
    // From now on the unkeyed events are held by the keyed one after them: rewrite them consistently, and the
    // keyed event no longer links (re-pointing its prev_hash would break its MAC instead).
    await rechain(db, "2", null, "1", "3");
    expect(await verifyAuditTrail(db.pool, { keys: A })).toMatchObject({
      ok: false,
      broken: { id: "4", problem: expect.stringContaining("does not match the previous event's hash") },
    });
  });
});
