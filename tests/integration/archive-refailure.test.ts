import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditActor, SYSTEM_ACTOR } from "../../lib/audit/actor";
import { appendAudit } from "../../lib/audit/append";
import { inTransaction } from "../../lib/db/transaction";
import { recordTimeline } from "../../lib/forensics/timeline";
import { closeDb, type Db } from "../../lib/db/client";
import { envelopeAnswer } from "../../lib/dead-letters/ingest/arrival-outcome";
import { ingestAll } from "../../lib/dead-letters/ingest/ingest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { lookup } from "../../lib/forensics/lookup";
import { LookupQuerySchema } from "../../lib/forensics/forensics-schemas";
import { runArchive } from "../../lib/ops/archive";
import { runRetention } from "../../lib/ops/retention";
import type { PulledMessage, SourceConnector } from "../../lib/sources/connector";
import { pullSource } from "../../lib/sources/pull-source";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// A replayed record whose key arrives again after it was archived fails again, exactly as a live replayed record
// does (README "A record that fails again after its replay"): back in triage under its id, the failure with the
// batch that had replayed it, audited, counted against the rule that decided it. Every way in is enumerated —
// POST /api/dead-letters, POST /api/afc/taps, `redrive import`'s call, a broker pull — each against a live
// replayed record (the comparison), an archived replayed one, and an archived purged one, which stays a duplicate
// that changes nothing.

setTestAuthEnv();

const ingestRoute = await import("../../app/api/dead-letters/route");
const tapsRoute = await import("../../app/api/afc/taps/route");

let db: Db;
let token: string;
const DAY = 86_400_000;

beforeAll(async () => {
  db = await testDb();
  token = await makeToken(db, (await makeUser(db, "producer")).id);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const square = [
  [
    [2.35, 48.85],
    [2.36, 48.85],
    [2.36, 48.86],
    [2.35, 48.86],
    [2.35, 48.85],
  ],
];
const envelope = (key: string, reason: string, death: number, replayCount = 0) =>
  JSON.stringify({
    kind: "spatial",
    source: "arc-refail",
    idempotency_key: key,
    observed_at: "2026-12-01T00:00:00Z",
    feature: { type: "Feature", id: key, geometry: { type: "Polygon", coordinates: square }, properties: { death } },
    dead_letter_reason: reason,
    replay_count: replayCount,
  });
/** A tap the AFC gate fails (its time is not a time): captured, keyed by its event hash. */
const failingTap = (eventId: string) =>
  JSON.stringify({ event_id: eventId, device_id: "arc-dev", fare_amount_cents: 250, tap_timestamp: "x" });

async function post(handler: typeof ingestRoute.POST, url: string, body: string): Promise<Record<string, unknown>> {
  const res = await handler(
    new Request(`http://localhost${url}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
      body: `${body}\n`,
    }),
    { params: Promise.resolve({}) },
  );
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const queue = (messages: PulledMessage[], acked: (m: PulledMessage[]) => Promise<void>): SourceConnector => ({
  provision: async () => {},
  deprovision: async () => {},
  waiting: async () => messages.length,
  take: async (max) => messages.splice(0, max),
  ack: acked,
  publish: async () => ({ outcome: "applied" }),
  close: async () => {},
});
let deaths = 0;
/** One death of `key` on the broker: a new position each time (a message pulled again at a seen position is no death). */
const message = (key: string, reason: string): PulledMessage => {
  const position = `arc.dlq/${key}@${++deaths}`;
  return {
    body: Buffer.from(envelope(key, reason, deaths)),
    receipt: position,
    origin: {
      sourceType: "rabbitmq",
      destination: { type: "rabbitmq", exchange: "parcels", routingKeys: ["parcels.new"], queue: "parcels" },
      deathReason: "rejected",
      deliveryCount: 1,
      messageId: key,
      position,
      publishedAt: null,
      diedAt: null,
      headers: {},
      properties: {},
    },
  };
};

/** What the record's row says once its key arrived again, read when the broker acknowledged the message. */
let atAck: Record<string, unknown>[] = [];

interface Path {
  name: string;
  /** in the keys of its records */
  tag: string;
  /** the failure_attempt origin the path writes */
  origin: string;
  /** sends one death of `key` the way the path does; answers what the path answers */
  send(key: string, reason: string): Promise<unknown>;
  /** the path's answer when the record failed again after its replay, and when the arrival changed nothing */
  failedAgain(id: string): unknown;
  unchanged(id: string): unknown;
}

const http: Path = {
  name: "POST /api/dead-letters",
  tag: "http",
  origin: "ingest",
  send: async (key, reason) =>
    ((await post(ingestRoute.POST, "/api/dead-letters", envelope(key, reason, ++deaths))).results as unknown[])[0],
  failedAgain: (id) => ({ index: 0, line: 1, status: "duplicate", id }),
  unchanged: (id) => ({ index: 0, line: 1, status: "duplicate", id }),
};
const taps: Path = {
  name: "POST /api/afc/taps",
  tag: "taps",
  origin: "capture",
  send: async (key) => ((await post(tapsRoute.POST, "/api/afc/taps?source=arc-refail", failingTap(key))).results as unknown[])[0],
  failedAgain: (id) => expect.objectContaining({ status: "duplicate", id }),
  unchanged: (id) => expect.objectContaining({ status: "duplicate", id }),
};
const cli: Path = {
  name: "redrive import",
  tag: "cli",
  origin: "ingest",
  send: async (key, reason) => {
    // what lib/cli/commands/import.ts hands the entry point
    async function* body() {
      yield Buffer.from(`${envelope(key, reason, ++deaths)}\n`);
    }
    const actor = { id: null, email: "cli:arc", role: "operator" };
    return (
      await ingestAll({ via: "envelopes", body: body(), format: "ndjson" }, { pool: db.pool, actor, requestId: "arc", threads: null })
    ).map(envelopeAnswer)[0];
  },
  failedAgain: (id) => ({ index: 0, line: 1, status: "duplicate", id }),
  unchanged: (id) => ({ index: 0, line: 1, status: "duplicate", id }),
};
const pull: Path = {
  name: "a broker pull",
  tag: "pull",
  origin: "pull",
  send: async (key, reason) =>
    pullSource(
      db.pool,
      { name: "arc-dlq", type: "rabbitmq", kind: "spatial" },
      queue([message(key, reason)], async () => {
        // acknowledged only once the store committed: another connection already sees what it did
        const { rows } = await db.pool.query(
          `SELECT id::text, status::text FROM dead_letter WHERE idempotency_key = $1
           UNION ALL SELECT id::text, 'archived' FROM dead_letter_archive WHERE idempotency_key = $1`,
          [key],
        );
        atAck = rows;
      }),
      { actor: SYSTEM_ACTOR, requestId: "arc", clock: () => new Date() },
    ),
  failedAgain: () => ({ pulled: 1, created: 0, duplicates: 0, unreadable: 0, failedAgain: 1 }),
  unchanged: () => ({ pulled: 1, created: 0, duplicates: 1, unreadable: 0 }),
};

async function idOf(key: string): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `SELECT id::text FROM dead_letter WHERE idempotency_key = $1 OR event_id = $1
     UNION ALL SELECT id::text FROM dead_letter_archive WHERE idempotency_key = $1 OR event_id = $1`,
    [key],
  );
  expect(rows).toHaveLength(1);
  return rows[0]!.id;
}

/**
 * Settles the record: replayed by a completed batch (its applied item) or purged, `daysAgo` days ago. Returns the
 * batch that replayed it.
 */
async function settle(id: string, status: "replayed" | "purged", daysAgo: number): Promise<string | null> {
  const at = new Date(Date.now() - daysAgo * DAY);
  let batch: string | null = null;
  if (status === "replayed") {
    batch = (
      await db.pool.query<{ id: string }>(
        `INSERT INTO replay_batch (status, created_by_id, sink, selection, rate_per_second)
         VALUES ('completed', 'arc-user', '{}', '{}', 1) RETURNING id::text AS id`,
      )
    ).rows[0]!.id;
    await db.pool.query(
      `INSERT INTO replay_item (batch_id, dead_letter_id, seq, kind, idempotency_key, observed_at, snapshot, status, finished_at)
       SELECT $1, d.id, 1, d.kind, d.idempotency_key, d.observed_at, '{}', 'applied', $3 FROM dead_letter d WHERE d.id = $2`,
      [batch, id, at],
    );
  }
  await db.pool.query(
    `UPDATE dead_letter SET status = $2::"DeadLetterStatus", replay_count = replay_count + $3, updated_at = $4 WHERE id = $1`,
    [id, status, status === "replayed" ? 1 : 0, at],
  );
  return batch;
}

/** Past retention (its payload stripped) and the archive horizon: every record settled more than 30 days ago. */
async function archiveDue(): Promise<void> {
  const now = new Date();
  await runRetention(db.pool, now, 30);
  await runArchive(db.pool, now, 30);
}

async function live(id: string) {
  const { rows } = await db.pool.query(
    `SELECT status::text, failure_class::text, failure_count, replay_count, payload IS NOT NULL AS has_payload,
       payload->'properties'->'death' AS death, first_failure_reason
     FROM dead_letter WHERE id = $1`,
    [id],
  );
  return rows[0] as Record<string, unknown> | undefined;
}
const archived = async (id: string) =>
  (await db.pool.query("SELECT status::text, failure_count FROM dead_letter_archive WHERE id = $1", [id])).rows[0] as
    Record<string, unknown> | undefined;
const attempts = async (id: string) =>
  (
    await db.pool.query(
      `SELECT attempt, origin, batch_id::text AS batch, reason FROM failure_attempt WHERE dead_letter_id = $1 ORDER BY attempt`,
      [id],
    )
  ).rows;
const actions = async (id: string) =>
  (
    await db.pool.query<{ action: string; after: Record<string, unknown> }>(
      `SELECT action, after FROM audit_event WHERE target_type = 'dead_letter' AND target_id = $1 ORDER BY id`,
      [id],
    )
  ).rows;

const PATHS = [http, taps, cli, pull];

describe.each(PATHS.map((p) => [p.name, p] as const))("%s", (_, path) => {
  const key = (state: string) => `arc-${path.tag}-${state}`;
  /** the live record's state after its failure after replay: the archived one must come back to the same */
  let comparison: Record<string, unknown> | undefined;

  it("a live replayed record whose key arrives again is back in triage (the comparison)", async () => {
    const k = key("live");
    await path.send(k, "first death");
    const id = await idOf(k);
    const batch = await settle(id, "replayed", 1);
    expect(await path.send(k, "died after replay")).toEqual(path.failedAgain(id));
    comparison = await live(id);
    expect(comparison).toMatchObject({ status: "pending", failure_count: 2, has_payload: true });
    expect((await attempts(id)).at(-1)).toMatchObject({ attempt: 2, origin: path.origin, batch });
    expect((await actions(id)).at(-1)).toMatchObject({ action: "dead_letter.failed_after_replay", after: { replayBatchId: batch } });
    if (path === pull) expect(atAck).toEqual([{ id, status: "pending" }]);
  });

  it("an archived replayed record whose key arrives again comes back, the same as the live one", async () => {
    const k = key("archived");
    await path.send(k, "first death");
    const id = await idOf(k);
    const batch = await settle(id, "replayed", 60);
    await archiveDue();
    expect(await live(id)).toBeUndefined();
    expect(await archived(id)).toMatchObject({ status: "replayed" });

    expect(await path.send(k, "died after replay")).toEqual(path.failedAgain(id));
    // same id and key, out of the archive, back in triage with the arriving body (the archive kept none)
    expect(await archived(id)).toBeUndefined();
    const back = await live(id);
    const { death: _death, ...same } = comparison!;
    expect(back).toMatchObject({ ...same, status: "pending", failure_count: 2, has_payload: true });
    expect(back!.death ?? null).toBe(path === taps ? null : deaths); // the arriving body (a tap has no `death`)
    expect(await idOf(k)).toBe(id);
    expect((await attempts(id)).at(-1)).toMatchObject({ attempt: 2, origin: path.origin, batch });
    const audited = await actions(id);
    expect(audited.slice(-2).map((a) => a.action)).toEqual(["dead_letter.unarchived", "dead_letter.failed_after_replay"]);
    expect(audited.at(-1)!.after).toMatchObject({ status: "pending", failureCount: 2, replayBatchId: batch });
    if (path === pull) expect(atAck).toEqual([{ id, status: "pending" }]); // acknowledged after the move committed

    // a second death while it is back in triage is an ordinary repeat
    await path.send(k, "died again");
    expect(await live(id)).toMatchObject({ status: "pending", failure_count: 3 });
  });

  it("an archived record that was not replayed (purged) stays archived: a duplicate that changes nothing", async () => {
    const k = key("purged");
    await path.send(k, "first death");
    const id = await idOf(k);
    await settle(id, "purged", 60);
    await archiveDue();
    expect(await path.send(k, "arrives again")).toEqual(path.unchanged(id));
    expect(await live(id)).toBeUndefined();
    expect(await archived(id)).toEqual({ status: "purged", failure_count: 1 });
    expect((await actions(id)).at(-1)).toMatchObject({ action: "dead_letter.archived_key_received" });
    if (path === pull) expect(atAck).toEqual([{ id, status: "archived" }]);
  });
});

describe("what comes back from the archive", () => {
  it("from any sender: a record a producer POSTed fails again when a broker pull brings its key", async () => {
    await http.send("arc-cross", "first death");
    const id = await idOf("arc-cross");
    await settle(id, "replayed", 60);
    await archiveDue();
    expect(await pull.send("arc-cross", "its consumer rejected the replay")).toEqual(pull.failedAgain(id));
    expect(await live(id)).toMatchObject({ status: "pending", failure_count: 2 });
    // the producer still owns it: its own re-send is answered with the id, one more failure
    expect(await http.send("arc-cross", "again")).toEqual({ index: 0, line: 1, status: "duplicate", id });
    expect(await live(id)).toMatchObject({ status: "pending", failure_count: 3 });
  });

  it("past the replay bound it comes back poison, in quarantine, as a live one would", async () => {
    await cli.send("arc-bound", "first death");
    const id = await idOf("arc-bound");
    await db.pool.query("UPDATE dead_letter SET replay_count = 2 WHERE id = $1", [id]);
    await settle(id, "replayed", 60); // its third replay
    await archiveDue();
    await cli.send("arc-bound", "timeout");
    expect(await live(id)).toMatchObject({ status: "quarantined", failure_class: "poison", replay_count: 3 });
    const { rows } = await db.pool.query("SELECT class_reason, reason FROM dead_letter WHERE id = $1", [id]);
    expect(rows[0]).toEqual({ class_reason: "replayed 3 times", reason: "replayed 3 times" });
  });

  it("counts against the rule that decided it, keeps its first reason, class reason and identity aliases", async () => {
    await http.send("arc-kept", "the very first death");
    const id = await idOf("arc-kept");
    await db.pool.query(
      `UPDATE dead_letter SET decided_by_rule_id = 9876, decided_by_rule_version = 3, class_reason = 'schema drift' WHERE id = $1`,
      [id],
    );
    await db.pool.query(
      `INSERT INTO identity_alias (field, value, dead_letter_id, replaced_at) VALUES ('event_id', 'arc-old-event', $1, now())`,
      [id],
    );
    await settle(id, "replayed", 60);
    await archiveDue();
    expect(await live(id)).toBeUndefined();
    await http.send("arc-kept", "died after replay");

    expect(await live(id)).toMatchObject({ status: "pending", first_failure_reason: "the very first death" });
    const { rows } = await db.pool.query(
      "SELECT class_reason, decided_by_rule_id::text AS rule, decided_by_rule_version AS version FROM dead_letter WHERE id = $1",
      [id],
    );
    expect(rows[0]).toEqual({ class_reason: "schema drift", rule: "9876", version: 3 });
    const stat = await db.pool.query("SELECT failed_after_replay FROM rule_match_stat WHERE rule_id = 9876 AND version = 3");
    expect(stat.rows).toEqual([{ failed_after_replay: 1 }]);
    const found = await lookup(db.pool, UNSCOPED, LookupQuerySchema.parse({ q: "arc-old-event" }), null);
    expect(found.records.map((r) => ({ id: r.id, archived: r.archived }))).toEqual([{ id, archived: false }]);
  });

  it("two arrivals of one archived key in one batch: the first brings it back, the second is a repeat on it", async () => {
    await cli.send("arc-twice", "first death");
    const id = await idOf("arc-twice");
    await settle(id, "replayed", 60);
    await archiveDue();
    async function* body() {
      yield Buffer.from(`${envelope("arc-twice", "one", 1)}\n${envelope("arc-twice", "two", 2)}\n`);
    }
    const actor = { id: null, email: "cli:arc", role: "operator" };
    const out = await ingestAll(
      { via: "envelopes", body: body(), format: "ndjson" },
      { pool: db.pool, actor, requestId: "arc", threads: null },
    );
    expect(out.map((o) => (o.status === "duplicate" ? o.effect : o.status))).toEqual(["failed_again", "repeat"]);
    expect(await live(id)).toMatchObject({ status: "pending", failure_count: 3, death: 1 });
    expect((await attempts(id)).map((a) => a.reason)).toEqual(["one", "two"]);
  });

  it("a key whose live row is archived while its arrival is being stored comes back with the arriving body", async () => {
    // The arrival of arc-race-a meets its live replayed row (stored, so it goes through the staging table and is
    // not inserted); its batch then waits on arc-race-b, held by another transaction, while the row is archived.
    await cli.send("arc-race-a", "first death");
    const id = await idOf("arc-race-a");
    await settle(id, "replayed", 60);
    const other = await db.pool.connect();
    const watcher = await db.pool.connect();
    try {
      await other.query("BEGIN");
      await other.query(
        `INSERT INTO dead_letter (kind, source, idempotency_key, observed_at, first_seen_at, first_failure_reason, reason, reason_group, failure_class)
         VALUES ('spatial', 'arc-refail', 'arc-race-b', now(), now(), 'r', 'r', 'r', 'transient')`,
      );
      async function* body() {
        yield Buffer.from(`${envelope("arc-race-a", "died after replay", 77)}\n${envelope("arc-race-b", "new", 78)}\n`);
      }
      const actor = { id: null, email: "cli:arc", role: "operator" };
      const storing = ingestAll(
        { via: "envelopes", body: body(), format: "ndjson" },
        { pool: db.pool, actor, requestId: "arc", threads: null },
      );
      for (let i = 0; ; i++) {
        const { rows } = await watcher.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO dead_letter (%'`,
        );
        if (rows[0].n > 0) break;
        if (i > 500) throw new Error("the store never waited on arc-race-b");
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await runArchive(db.pool, new Date(), 30)).archived).toBe(1);
      await other.query("ROLLBACK");
      const out = await storing;
      expect(out.map((o) => (o.status === "duplicate" ? o.effect : o.status))).toEqual(["failed_again", "created"]);
    } finally {
      other.release();
      watcher.release();
    }
    expect(await archived(id)).toBeUndefined();
    expect(await live(id)).toMatchObject({ status: "pending", failure_count: 2, has_payload: true, death: 77 });
  });

  it("keeps its timeline: capture, replay batch, archiving, the move back, the failure after replay", async () => {
    await http.send("arc-timeline", "first death");
    const id = await idOf("arc-timeline");
    const batch = (await settle(id, "replayed", 60))!;
    await inTransaction(db.pool, (c) =>
      appendAudit(
        c,
        [{ ...auditActor(SYSTEM_ACTOR), action: "replay_batch.create", targetType: "replay_batch", targetId: batch, after: {} }],
        new Date(),
      ),
    );
    await archiveDue();
    await pull.send("arc-timeline", "its consumer rejected the replay");
    const t = await recordTimeline(db.pool, UNSCOPED, id, null);
    expect(t).toMatchObject({ archivedAt: null, status: "pending" });
    expect(t.events.map((e) => e.action)).toEqual([
      "dead_letter.ingested",
      "replay_batch.create",
      "dead_letter.retention_applied",
      "dead_letter.archived",
      "dead_letter.unarchived",
      "dead_letter.failed_after_replay",
    ]);
    expect(t.events[4]!.summary).toMatch(/^Back from the archive \(archived \d{4}-\d\d-\d\d\): its key arrived again after its replay$/);
    expect(t.events[5]!.summary).toMatch(new RegExp(`^Failed again after replay in batch #${batch} \\(failure #2\\).*back in triage$`));
  });
});
