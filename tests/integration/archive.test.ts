import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { closeDb, type Db } from "../../lib/db/client";
import { AppError } from "../../lib/errors/app-error";
import { readDetailForReader } from "../../lib/dead-letters/query/detail";
import { ingestAll } from "../../lib/dead-letters/ingest/ingest";
import { envelopeAnswer, type IngestResult } from "../../lib/dead-letters/ingest/arrival-outcome";
import { lookup } from "../../lib/forensics/lookup";
import { recordTimeline } from "../../lib/forensics/timeline";
import { runArchive } from "../../lib/ops/archive";
import { archiveHorizonDays, readArchiveSetting, setArchiveHorizon } from "../../lib/ops/archive-setting";
import { maintenanceRound } from "../../lib/ops/maintenance";
import { batchInScopeSql, paramsOf, scopeOf, UNSCOPED } from "../../lib/scope/record-scope";
import { LookupQuerySchema } from "../../lib/forensics/forensics-schemas";
import { afcRecord, ingest, spatialEnvelope } from "../replay/fixtures";
import { testDb } from "./helpers";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import type { RouteHandler } from "../../lib/api/handler";
import { GET as archiveGet, PUT as archivePut } from "../../app/api/settings/archive/route";
import { GET as detailGet } from "../../app/api/dead-letters/[id]/route";

// The archive horizon (lib/ops/archive.ts): settled records leave dead_letter for dead_letter_archive; dedup, lookup,
// the timeline and the record page still know them, within the reader's team scope.

setTestAuthEnv();

let db: Db;
const NOW = new Date("2027-06-01T00:00:00Z");
const LONG_AGO = new Date("2027-01-01T00:00:00Z");
const RECENTLY = new Date("2027-05-25T00:00:00Z");
const settle = (ids: string[], at: Date, status = "replayed") =>
  db.pool.query(`UPDATE dead_letter SET status = $3::"DeadLetterStatus", updated_at = $2 WHERE id = ANY($1::bigint[])`, [ids, at, status]);

async function send(texts: string[]): Promise<IngestResult[]> {
  async function* records() {
    for (const [index, text] of texts.entries()) yield { index, text };
  }
  const outcomes = await ingestAll(
    { via: "records", records: records() },
    { pool: db.pool, actor: SYSTEM_ACTOR, requestId: "test", threads: null },
  );
  return outcomes.map(envelopeAnswer);
}

const liveCount = async (key: string) =>
  Number((await db.pool.query("SELECT count(*) FROM dead_letter WHERE idempotency_key = $1", [key])).rows[0].count);
const archivedRow = async (id: string) => (await db.pool.query("SELECT * FROM dead_letter_archive WHERE id = $1", [id])).rows[0];
const lookupQ = (q: string) => LookupQuerySchema.parse({ q });

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "replay_batch", "ledger_entry"] });
});
afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("moving settled records past the horizon", () => {
  it("moves replayed and purged records settled before the horizon, keeps the rest, audits each batch", async () => {
    const [oldReplayed, oldPurged, recent, pending] = await ingest(db, [
      spatialEnvelope({ key: "arc-old-replayed", observedAt: 1, featureId: "f-arc-1" }),
      spatialEnvelope({ key: "arc-old-purged", observedAt: 2, featureId: "f-arc-2" }),
      spatialEnvelope({ key: "arc-recent", observedAt: 3, featureId: "f-arc-3" }),
      spatialEnvelope({ key: "arc-pending", observedAt: 4, featureId: "f-arc-4" }),
    ]);
    await settle([oldReplayed!], LONG_AGO);
    await settle([oldPurged!], LONG_AGO, "purged");
    await settle([recent!], RECENTLY);
    await db.pool.query("UPDATE dead_letter SET updated_at = $2 WHERE id = $1", [pending, LONG_AGO]);

    const r = await runArchive(db.pool, NOW, 30, { batch: 1 });
    expect(r).toMatchObject({ archived: 2, batches: 2, more: false });
    const live = (await db.pool.query("SELECT id::text AS id FROM dead_letter ORDER BY id")).rows.map((x: { id: string }) => x.id);
    expect(live).toEqual([recent, pending]);
    // the history rows left with the record; what finds its timeline was kept
    expect((await db.pool.query("SELECT count(*)::int AS n FROM failure_attempt WHERE dead_letter_id = $1", [oldReplayed])).rows[0].n).toBe(
      0,
    );
    const kept = await archivedRow(oldReplayed!);
    expect(kept).toMatchObject({
      kind: "spatial",
      source: "test",
      idempotency_key: "arc-old-replayed",
      status: "replayed",
      entity_key: "f-arc-1",
    });
    expect(kept.settled_at).toEqual(LONG_AGO);
    expect(kept.archived_at).toEqual(NOW);
    expect(kept.capture_event_ids).toHaveLength(1);
    expect((await archivedRow(oldPurged!)).status).toBe("purged");
    const audits = await db.pool.query("SELECT after FROM audit_event WHERE action = 'dead_letter.archived' ORDER BY id");
    expect(audits.rows.map((a: { after: { ids: string[] } }) => a.after.ids)).toEqual([[oldReplayed], [oldPurged]]);
    expect(await runArchive(db.pool, NOW, 30)).toMatchObject({ archived: 0, batches: 0 }); // nothing twice
  });

  it("leaves a record whose replay item has not finished, and one locked by a writer (SKIP LOCKED, not waited for)", async () => {
    const [held, locked] = await ingest(db, [
      spatialEnvelope({ key: "arc-held", observedAt: 5, featureId: "f-arc-5" }),
      spatialEnvelope({ key: "arc-locked", observedAt: 6, featureId: "f-arc-6" }),
    ]);
    await settle([held!, locked!], LONG_AGO);
    const batch = await db.pool.query<{ id: string }>(
      `INSERT INTO replay_batch (status, created_by_id, sink, selection, rate_per_second)
       VALUES ('running', 'arc-user', '{}', '{}', 1) RETURNING id::text AS id`,
    );
    await db.pool.query(
      `INSERT INTO replay_item (batch_id, dead_letter_id, seq, kind, idempotency_key, observed_at, snapshot, status)
       SELECT $1, d.id, 1, d.kind, d.idempotency_key, d.observed_at, '{}', 'pending' FROM dead_letter d WHERE d.id = $2`,
      [batch.rows[0]!.id, held],
    );
    const writer: pg.PoolClient = await db.pool.connect();
    try {
      await writer.query("BEGIN");
      await writer.query("SELECT 1 FROM dead_letter WHERE id = $1 FOR UPDATE", [locked]);
      const r = await runArchive(db.pool, NOW, 30);
      expect(r.archived).toBe(0);
      await writer.query("ROLLBACK");
    } finally {
      writer.release();
    }
    expect(await runArchive(db.pool, NOW, 30)).toMatchObject({ archived: 1 }); // the lock gone, it moves
    expect(await liveCount("arc-locked")).toBe(0);
    expect(await liveCount("arc-held")).toBe(1);
  });
});

describe("dedup stays exact", () => {
  it("answers a re-sent key of an archived record that was not replayed as a duplicate, changes nothing and audits the arrival", async () => {
    const [id] = await ingest(db, [afcRecord({ eventId: "arc-tap-1", deviceId: "arc-dev-1", at: 10 })]);
    const key = (await db.pool.query("SELECT idempotency_key FROM dead_letter WHERE id = $1", [id])).rows[0].idempotency_key as string;
    await settle([id!], LONG_AGO, "purged");
    expect((await runArchive(db.pool, NOW, 30)).archived).toBe(1);

    // twice in one batch and once more later: every one a duplicate of the archived record
    const again = await send([
      afcRecord({ eventId: "arc-tap-1", deviceId: "arc-dev-1", at: 10 }),
      afcRecord({ eventId: "arc-tap-1", deviceId: "arc-dev-1", at: 10 }),
    ]);
    expect(again).toEqual([
      { index: 0, status: "duplicate", id },
      { index: 1, status: "duplicate", id },
    ]);
    expect(await send([afcRecord({ eventId: "arc-tap-1", deviceId: "arc-dev-1", at: 10 })])).toEqual([
      { index: 0, status: "duplicate", id },
    ]);
    expect(await liveCount(key)).toBe(0);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM dead_letter_archive WHERE idempotency_key = $1", [key])).rows[0].n).toBe(1);
    const arrivals = await db.pool.query(
      "SELECT count(*)::int AS n FROM audit_event WHERE action = 'dead_letter.archived_key_received' AND target_id = $1",
      [id],
    );
    expect(arrivals.rows[0].n).toBe(3);
  });

  it("brings an archived replayed record whose key arrives again back to triage: same id and key, one failure per arrival", async () => {
    const [id] = await ingest(db, [afcRecord({ eventId: "arc-tap-2", deviceId: "arc-dev-1", at: 11 })]);
    const key = (await db.pool.query("SELECT idempotency_key FROM dead_letter WHERE id = $1", [id])).rows[0].idempotency_key as string;
    await settle([id!], LONG_AGO);
    expect((await runArchive(db.pool, NOW, 30)).archived).toBe(1);

    // twice in one batch and once more later: the first is its failure after replay, the others repeats on it
    const again = await send([
      afcRecord({ eventId: "arc-tap-2", deviceId: "arc-dev-1", at: 11 }),
      afcRecord({ eventId: "arc-tap-2", deviceId: "arc-dev-1", at: 11 }),
    ]);
    expect(again).toEqual([
      { index: 0, status: "duplicate", id },
      { index: 1, status: "duplicate", id },
    ]);
    const row = async () =>
      (await db.pool.query("SELECT id::text, idempotency_key, status::text, failure_class::text FROM dead_letter WHERE id = $1", [id]))
        .rows;
    expect(await row()).toEqual([{ id, idempotency_key: key, status: "pending", failure_class: "transient_schema" }]);
    // the third failure after the first spends the last retry: poison, in quarantine, as for any AFC record
    expect(await send([afcRecord({ eventId: "arc-tap-2", deviceId: "arc-dev-1", at: 11 })])).toEqual([
      { index: 0, status: "duplicate", id },
    ]);
    expect(await row()).toEqual([{ id, idempotency_key: key, status: "quarantined", failure_class: "poison" }]);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM dead_letter_archive WHERE idempotency_key = $1", [key])).rows[0].n).toBe(0);
    const audited = await db.pool.query(
      "SELECT action FROM audit_event WHERE target_type = 'dead_letter' AND target_id = $1 AND action <> 'dead_letter.archived' ORDER BY id",
      [id],
    );
    expect(audited.rows.map((r: { action: string }) => r.action)).toEqual([
      "dead_letter.unarchived",
      "dead_letter.failed_after_replay",
      "dead_letter.failure_recorded",
    ]);
  });

  it.each([
    ["purged", "counts as a duplicate"],
    ["replayed", "brings it back to triage"],
  ] as const)("a repeat that arrives while its %s record is being archived waits for that commit and %s", async (status, _outcome) => {
    const key = `arc-race-${status}`;
    const [id] = await ingest(db, [spatialEnvelope({ key, observedAt: 20, featureId: "f-arc-race" })]);
    await settle([id!], LONG_AGO, status);
    // Hold the audit chain: the archiving transaction then stops after moving the row (deleted, archived, not
    // committed) and before its audit event.
    const chain = await db.pool.connect();
    const watcher = await db.pool.connect();
    const waiting = async (pattern: string) => {
      for (let i = 0; i < 500; i++) {
        const { rows } = await watcher.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
          [pattern],
        );
        if (rows[0].n > 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`nobody waited on a lock running ${pattern}`);
    };
    try {
      await chain.query("BEGIN");
      await chain.query("SELECT 1 FROM audit_head WHERE id = 1 FOR UPDATE");
      const archiving = runArchive(db.pool, NOW, 30);
      await waiting("%audit_head%");
      // The repeat's insert meets the deleted row's unique-index entry and waits for the archiving transaction.
      const repeat = send([spatialEnvelope({ key, observedAt: 20, featureId: "f-arc-race" })]);
      await waiting("COPY dead_letter %");
      await chain.query("COMMIT");
      expect((await archiving).archived).toBe(1);
      expect(await repeat).toEqual([{ index: 0, status: "duplicate", id }]);
    } finally {
      chain.release();
      watcher.release();
    }
    if (status === "purged") {
      expect(await liveCount(key)).toBe(0);
      expect((await archivedRow(id!)).idempotency_key).toBe(key);
    } else {
      expect(await archivedRow(id!)).toBeUndefined();
      const { rows } = await db.pool.query("SELECT id::text, status::text FROM dead_letter WHERE idempotency_key = $1", [key]);
      expect(rows).toEqual([{ id, status: "pending" }]);
    }
  });
});

describe("lookup, the timeline and the record page read the archive", () => {
  let id: string;
  let key: string;
  let archivedAt: Date;
  beforeAll(async () => {
    [id] = (await ingest(db, [afcRecord({ eventId: "arc-tap-look", deviceId: "arc-dev-look", at: 30 })])) as [string];
    key = (await db.pool.query("SELECT idempotency_key FROM dead_letter WHERE id = $1", [id])).rows[0].idempotency_key as string;
    // On the real clock: the key's later arrival (stamped now) comes after the archiving on the timeline. Purged: a
    // later arrival leaves it archived (a replayed one would come back, archive-refailure.test.ts).
    await settle([id], new Date(Date.now() - 60 * 86_400_000), "purged");
    archivedAt = new Date();
    expect((await runArchive(db.pool, archivedAt, 30)).archived).toBe(1);
  });

  it("finds an archived record by key, hash prefix, event id, device id and record id", async () => {
    for (const [q, field] of [
      [key, "idempotency_key"],
      [key.slice(0, 12), "event_hash_prefix"],
      ["arc-tap-look", "event_id"],
      ["arc-dev-look", "device_id"],
      [id, "record_id"],
    ] as const) {
      const r = await lookup(db.pool, UNSCOPED, lookupQ(q), null);
      const hit = r.records.find((x) => x.id === id);
      expect(hit, q).toMatchObject({ archived: true, status: "purged", idempotencyKey: key, position: null });
      expect(hit!.matchedOn, q).toContain(field);
    }
  });

  it("applies team scope to archived records", async () => {
    const mine = scopeOf([{ id: "1", claims: [{ source: "test" }] }]);
    const theirs = scopeOf([{ id: "2", claims: [{ source: "elsewhere" }] }]);
    expect((await lookup(db.pool, mine, lookupQ("arc-tap-look"), null)).records.map((r) => r.id)).toEqual([id]);
    expect((await lookup(db.pool, theirs, lookupQ("arc-tap-look"), null)).records).toEqual([]);
    await expect(recordTimeline(db.pool, theirs, id, null)).rejects.toMatchObject({ code: "not_found" });
    await expect(readDetailForReader(db.pool, theirs, id)).rejects.toMatchObject({ code: "not_found" });
    expect((await recordTimeline(db.pool, mine, id, null)).deadLetterId).toBe(id);
  });

  it("answers the record page of an archived id with 410 naming its timeline", async () => {
    const err = await readDetailForReader(db.pool, UNSCOPED, id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(410);
    expect((err as AppError).message).toContain("archive");
    await expect(readDetailForReader(db.pool, UNSCOPED, "999999999")).rejects.toMatchObject({ code: "not_found" });
  });

  it("keeps the timeline: capture, archiving and a later arrival of its key", async () => {
    await send([afcRecord({ eventId: "arc-tap-look", deviceId: "arc-dev-look", at: 30 })]);
    const t = await recordTimeline(db.pool, UNSCOPED, id, null);
    expect(t.archivedAt).toBe(archivedAt.toISOString());
    expect(t.status).toBe("purged");
    expect(t.events.map((e) => e.action)).toEqual(["dead_letter.ingested", "dead_letter.archived", "dead_letter.archived_key_received"]);
    expect(t.events[1]!.summary).toContain("Moved to the archive (30 days after settlement)");
    expect(t.events[2]!.kind).toBe("failure");
    // a live record's timeline says it is not archived
    const [live] = await ingest(db, [afcRecord({ eventId: "arc-tap-live", deviceId: "arc-dev-look", at: 31 })]);
    expect((await recordTimeline(db.pool, UNSCOPED, live!, null)).archivedAt).toBeNull();
  });
});

describe("team scope of replay batches", () => {
  it("still hides a batch from a team whose records it did not hold once those records are archived", async () => {
    const [id] = await ingest(db, [spatialEnvelope({ key: "arc-batch", observedAt: 50, featureId: "f-arc-b" })]);
    const batch = (
      await db.pool.query<{ id: string }>(
        `INSERT INTO replay_batch (status, created_by_id, sink, selection, rate_per_second)
         VALUES ('completed', 'arc-user', '{}', '{}', 1) RETURNING id::text AS id`,
      )
    ).rows[0]!.id;
    await db.pool.query(
      `INSERT INTO replay_item (batch_id, dead_letter_id, seq, kind, idempotency_key, observed_at, snapshot, status)
       SELECT $1, d.id, 1, d.kind, d.idempotency_key, d.observed_at, '{}', 'applied' FROM dead_letter d WHERE d.id = $2`,
      [batch, id],
    );
    await settle([id!], LONG_AGO);
    expect((await runArchive(db.pool, NOW, 30)).archived).toBe(1);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM replay_item WHERE batch_id = $1", [batch])).rows[0].n).toBe(0);
    const visible = async (scope: ReturnType<typeof scopeOf>) => {
      const values: unknown[] = [batch];
      const { rows } = await db.pool.query(
        `SELECT b.id FROM replay_batch b WHERE b.id = $1 AND ${batchInScopeSql(scope, paramsOf(values))}`,
        values,
      );
      return rows.length === 1;
    };
    expect(await visible(scopeOf([{ id: "1", claims: [{ source: "test" }] }]))).toBe(true);
    expect(await visible(scopeOf([{ id: "2", claims: [{ source: "elsewhere" }] }]))).toBe(false);
    expect((await archivedRow(id!)).replay_batch_ids).toEqual([batch]);
  });
});

describe("the horizon setting", () => {
  it("is off by default, audited when changed, and applied by the maintenance round", async () => {
    expect(await archiveHorizonDays(db.pool)).toBeNull();
    const [id] = await ingest(db, [spatialEnvelope({ key: "arc-maint", observedAt: 40, featureId: "f-arc-m" })]);
    await settle([id!], LONG_AGO);
    const round = async () => maintenanceRound({ pool: db.pool, now: () => NOW, retentionDays: 3650, log: () => {} });
    expect((await round()).archive).toBeNull();
    expect(await liveCount("arc-maint")).toBe(1);

    const ctx = { actor: SYSTEM_ACTOR, requestId: "t", now: NOW };
    expect(await setArchiveHorizon(db.pool, 60, 90, ctx)).toMatchObject({ days: 60, retentionDays: 90 });
    expect((await round()).archive).toMatchObject({ archived: 1 });
    expect(await liveCount("arc-maint")).toBe(0);
    await setArchiveHorizon(db.pool, null, 90, ctx);
    expect((await readArchiveSetting(db.pool, 90)).days).toBeNull();
    const changes = await db.pool.query(
      "SELECT before, after FROM audit_event WHERE action = 'setting.changed' AND target_id = 'retention.archive_after_days' ORDER BY id",
    );
    expect(changes.rows).toEqual([
      { before: { days: null }, after: { days: 60 } },
      { before: { days: 60 }, after: { days: null } },
    ]);
  });
});

describe("retention and the archive in one round", () => {
  it("counts the archive horizon from when the record was settled, not from when retention stripped its payload", async () => {
    const [id] = await ingest(db, [spatialEnvelope({ key: "arc-stripped", observedAt: 41, featureId: "f-arc-s" })]);
    await settle([id!], LONG_AGO); // 151 days before NOW: past retention (30) and the horizon (60)
    const ctx = { actor: SYSTEM_ACTOR, requestId: "t", now: NOW };
    await setArchiveHorizon(db.pool, 60, 30, ctx);
    try {
      const r = await maintenanceRound({ pool: db.pool, now: () => NOW, retentionDays: 30, log: () => {} });
      // (other tests' settled records are in the same round)
      expect(r.retention!.stripped).toBeGreaterThanOrEqual(1);
      expect(r.archive!.archived).toBeGreaterThanOrEqual(1);
      expect(await liveCount("arc-stripped")).toBe(0);
      expect((await archivedRow(id!)).settled_at).toEqual(LONG_AGO);
    } finally {
      await setArchiveHorizon(db.pool, null, 30, ctx);
    }
  });
});

describe("over HTTP", () => {
  async function call(handler: RouteHandler, url: string, token: string, method: string, body?: unknown, params = {}) {
    const res = await handler(
      new Request(`http://localhost${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      { params: Promise.resolve(params) },
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it("lets admins alone set the horizon, refuses a bad one naming the field, and answers 410 for an archived record", async () => {
    const admin = await makeUser(db, "admin");
    const adminToken = await makeToken(db, admin.id);
    const supervisorToken = await makeToken(db, (await makeUser(db, "supervisor")).id);
    const put = (token: string, body: unknown) => call(archivePut, "/api/settings/archive", token, "PUT", body);

    expect((await put(supervisorToken, { days: 30 })).status).toBe(403);
    const bad = await put(adminToken, { days: 0 });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('"path":"days"');
    expect((await put(adminToken, { days: "30" })).status).toBe(422);
    const ok = await put(adminToken, { days: 400 });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ days: 400, updatedBy: admin.email });
    expect((await call(archiveGet, "/api/settings/archive", adminToken, "GET")).body).toMatchObject({ days: 400 });
    expect((await put(adminToken, { days: null })).body).toMatchObject({ days: null });

    const [id] = await ingest(db, [spatialEnvelope({ key: "arc-http", observedAt: 60, featureId: "f-arc-h" })]);
    await settle([id!], LONG_AGO);
    expect((await runArchive(db.pool, NOW, 30)).archived).toBe(1);
    const gone = await call(detailGet, `/api/dead-letters/${id}`, adminToken, "GET", undefined, { id });
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ error: { code: "gone", timeline: `/api/dead-letters/${id}/timeline` } });
  });
});
