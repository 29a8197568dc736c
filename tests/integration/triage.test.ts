import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { applyAction, type ActionContext } from "../../lib/dead-letters/triage/apply-action";
import { TAP_FAILS_SCHEMA } from "../../lib/dead-letters/triage/approve-warning";
import { bulkAction } from "../../lib/dead-letters/triage/bulk-action";
import { getDeadLetter } from "../../lib/dead-letters/query/detail";
import { countMatching, facetCounts } from "../../lib/dead-letters/query/facets";
import { ingest } from "../../lib/dead-letters/ingest/ingest";
import type { RecordText } from "../../lib/dead-letters/ingest/split";
import { listDeadLetters } from "../../lib/dead-letters/query/list";
import { matchingExtent } from "../../lib/dead-letters/query/extent";
import { ListQuerySchema } from "../../lib/dead-letters/filters";
import type { JsonValue } from "@/lib/json/value";
import { afcRecord, ingest as ingestTexts } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Triage decisions against a real database: optimistic concurrency, the state machine under the lock, the
// audit trail, the AFC identity rule, server-side re-validation of edited geometry, and bulk by filter.

setTestAuthEnv();

const bowtie = [
  [
    [2.35, 48.85],
    [2.36, 48.86],
    [2.36, 48.85],
    [2.35, 48.86],
    [2.35, 48.85],
  ],
];
const square = [
  [
    [2.35, 48.85],
    [2.36, 48.85],
    [2.36, 48.86],
    [2.35, 48.86],
    [2.35, 48.85],
  ],
];

const spatial = (key: string) =>
  JSON.stringify({
    kind: "spatial",
    source: "parcels",
    idempotency_key: key,
    observed_at: "2026-11-05T10:00:00Z",
    feature: {
      type: "Feature",
      id: "p-1",
      geometry: { type: "Polygon", coordinates: bowtie },
      properties: { name: "<img src=x onerror=alert(1)>" },
    },
    dead_letter_reason: "TopologyException: Self-intersection",
    replay_count: 0,
  });
const afc = (tap: string) => `{"kind":"afc","source":"gates","raw_payload":${tap},"first_seen_utc":"2026-11-05T09:00:00Z"}`;
const tap = (eventId: string | null, fare = '"275"') =>
  `{${eventId ? `"event_id":"${eventId}",` : ""}"device_id":"gate-01","fare_amount_cents":${fare},"tap_timestamp":"2026-11-05T08:00:00Z","battery_pct":7}`;

let db: Db;
let analyst: ActionContext;
let supervisor: ActionContext;
const ids: Record<string, string> = {};

async function* texts(lines: string[]): AsyncGenerator<RecordText> {
  let index = 0;
  for (const text of lines) yield { index: index++, text };
}

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "failure_attempt", "user"] });
  const a = await makeUser(db, "analyst");
  const s = await makeUser(db, "supervisor");
  analyst = {
    scope: UNSCOPED,
    actor: { id: a.id, email: a.email, role: "analyst" },
    requestId: "t",
    now: new Date(),
    canOverrideIdentity: false,
  };
  supervisor = {
    scope: UNSCOPED,
    actor: { id: s.id, email: s.email, role: "supervisor" },
    requestId: "t",
    now: new Date(),
    canOverrideIdentity: true,
  };
  const lines = [spatial("sp-1"), afc(tap("e-1")), afc(tap(null)), afc(tap("e-3")), afc(tap("e-4")), spatial("sp-2")];
  const names = ["bowtie", "afc", "poison", "afc3", "afc4", "bowtie2"];
  const seed = { pool: db.pool, actor: analyst.actor, requestId: "seed", threads: null };
  for await (const results of await ingest({ via: "records", records: texts(lines) }, seed)) {
    for (const r of results) if (r.status === "created") ids[names[r.index]!] = r.id;
  }
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const auditFor = async (id: string) =>
  (
    await db.pool.query<{ action: string; reason: string | null; before: unknown; after: unknown; diff: unknown; actor_email: string }>(
      "SELECT action, reason, before, after, diff, actor_email FROM audit_event WHERE target_type = 'dead_letter' AND target_id = $1 ORDER BY id",
      [id],
    )
  ).rows;

describe("single decisions", () => {
  it("approves with the current version and audits before/after in the same transaction", async () => {
    const before = await getDeadLetter(db.pool, ids.afc!);
    const after = await applyAction(db.pool, ids.afc!, { action: "approve", version: before.version }, analyst);
    expect(after).toMatchObject({ status: "approved", version: before.version + 1 });
    const audit = (await auditFor(ids.afc!)).at(-1)!;
    expect(audit).toMatchObject({
      action: "dead_letter.approved",
      actor_email: analyst.actor.email,
      before: { status: "pending" },
      after: { status: "approved" },
    });
  });

  it("answers 409 with the current record on a stale version, and writes nothing", async () => {
    const seen = await getDeadLetter(db.pool, ids.afc3!);
    await applyAction(db.pool, ids.afc3!, { action: "quarantine", version: seen.version, reason: "someone else" }, supervisor);
    const audits = (await auditFor(ids.afc3!)).length;
    const err = await applyAction(db.pool, ids.afc3!, { action: "approve", version: seen.version }, analyst).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "conflict", status: 409 });
    const body = (err as { toJSON(): { error: { current: { status: string; version: number } } } }).toJSON();
    expect(body.error.current).toMatchObject({ status: "quarantined", version: seen.version + 1 });
    expect((await auditFor(ids.afc3!)).length).toBe(audits);
  });

  it("refuses what the state machine forbids, under the lock", async () => {
    const d = await getDeadLetter(db.pool, ids.afc!); // approved above
    await expect(applyAction(db.pool, ids.afc!, { action: "approve", version: d.version }, analyst)).rejects.toMatchObject({
      code: "conflict",
    });
    const reopened = await applyAction(db.pool, ids.afc!, { action: "reopen", version: d.version }, analyst);
    expect(reopened.status).toBe("pending");
  });

  it("requires a reason to quarantine", async () => {
    const d = await getDeadLetter(db.pool, ids.afc4!);
    // The route's zod schema refuses a missing reason first; the state machine refuses a blank one.
    await expect(applyAction(db.pool, ids.afc4!, { action: "quarantine", version: d.version, reason: " " }, analyst)).rejects.toMatchObject(
      { code: "validation_failed", issues: [{ path: "reason" }] },
    );
  });
});

describe("edits", () => {
  it("AFC: fixes a non-identity field, re-classifies, stores the diff, never touches the raw envelope", async () => {
    const d = await getDeadLetter(db.pool, ids.afc4!);
    const { battery_pct: _b, ...fixed } = d.payload as Record<string, unknown>;
    const payload = { ...fixed } as Record<string, string>;
    const err = await applyAction(
      db.pool,
      ids.afc4!,
      { action: "edit", version: d.version, payload: { ...payload, fare_amount_cents: "280" } },
      analyst,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "validation_failed", issues: [{ path: "payload.fare_amount_cents" }] });
    const edited = await applyAction(db.pool, ids.afc4!, { action: "edit", version: d.version, payload }, analyst);
    expect(edited).toMatchObject({ version: d.version + 1, rawEnvelope: d.rawEnvelope, idempotencyKey: d.idempotencyKey });
    const audit = (await auditFor(ids.afc4!)).at(-1)!;
    expect(audit.action).toBe("dead_letter.edited");
    expect(audit.diff).toEqual({ battery_pct: [7, 0, 0] });
  });

  it("AFC: an analyst may coerce the string fare to its number (issue #4); the key and raw envelope stay", async () => {
    const d = await getDeadLetter(db.pool, ids.afc4!); // battery_pct stripped above; fare still "275"
    expect((d.payload as Record<string, unknown>).fare_amount_cents).toBe("275");
    const payload = { ...(d.payload as Record<string, unknown>), fare_amount_cents: 275 } as Record<string, string | number>;
    const edited = await applyAction(db.pool, ids.afc4!, { action: "edit", version: d.version, payload }, analyst);
    expect(edited).toMatchObject({ version: d.version + 1, rawEnvelope: d.rawEnvelope, idempotencyKey: d.idempotencyKey });
    expect((edited.payload as Record<string, unknown>).fare_amount_cents).toBe(275);
    expect(edited.classReason).toBe("edited into validity");
    const audit = (await auditFor(ids.afc4!)).at(-1)!;
    expect(audit.action).toBe("dead_letter.edited");
    // A later edit that breaks the schema again says so; the earlier "edited into validity" does not stay.
    const broken = await applyAction(
      db.pool,
      ids.afc4!,
      { action: "edit", version: edited.version, payload: { ...payload, fare_amount_cents: 275, note: "x" } },
      analyst,
    );
    expect(broken.classReason).toBe("edited; still fails the tap schema: note: Unrecognized key");
    await applyAction(
      db.pool,
      ids.afc4!,
      { action: "edit", version: broken.version, payload: { ...payload, fare_amount_cents: 275 } },
      analyst,
    );
  });

  it("AFC identity fields: refused for analysts, allowed for a supervisor with a reason; the key stays", async () => {
    const d = await getDeadLetter(db.pool, ids.poison!);
    expect(d.failureClass).toBe("poison");
    await expect(applyAction(db.pool, ids.poison!, { action: "approve", version: d.version }, analyst)).rejects.toMatchObject({
      code: "conflict",
    });
    const withId = { ...(d.payload as Record<string, unknown>), event_id: "e-2", fare_amount_cents: 275 } as Record<
      string,
      string | number
    >;
    delete withId.battery_pct;
    await expect(
      applyAction(
        db.pool,
        ids.poison!,
        { action: "edit", version: d.version, payload: withId, overrideIdentity: true, reason: "from gate log" },
        analyst,
      ),
    ).rejects.toMatchObject({ code: "forbidden" });
    // An analyst's reason is not an override; a supervisor saying overrideIdentity: false is not one either.
    await expect(
      applyAction(db.pool, ids.poison!, { action: "edit", version: d.version, payload: withId, reason: "from gate log" }, analyst),
    ).rejects.toMatchObject({ code: "validation_failed", issues: [{ path: "payload.event_id" }] });
    await expect(
      applyAction(
        db.pool,
        ids.poison!,
        { action: "edit", version: d.version, payload: withId, overrideIdentity: false, reason: "from gate log" },
        supervisor,
      ),
    ).rejects.toMatchObject({ code: "validation_failed", issues: [{ path: "payload.event_id" }] });
    // The issue's body {action, version, reason, payload} from a supervisor is the override.
    const edited = await applyAction(
      db.pool,
      ids.poison!,
      { action: "edit", version: d.version, payload: withId, reason: "from gate log" },
      supervisor,
    );
    expect(edited).toMatchObject({
      failureClass: "transient_schema",
      classReason: "edited into validity",
      idempotencyKey: d.idempotencyKey,
      eventId: "e-2",
    });
    const audits = await auditFor(ids.poison!);
    // fare "275" → 275 is a coercion, not an identity change (see the test above); event_id is the override
    expect(audits.at(-1)).toMatchObject({
      action: "dead_letter.identity_overridden",
      reason: "from gate log",
      after: { fields: ["event_id"] },
    });
    // Ingest quarantined it for being poison; the edit keeps that decision until someone reopens it.
    expect(edited.status).toBe("quarantined");
    const reopened = await applyAction(db.pool, ids.poison!, { action: "reopen", version: edited.version }, analyst);
    const approved = await applyAction(db.pool, ids.poison!, { action: "approve", version: reopened.version }, analyst);
    expect(approved.status).toBe("approved");
  });

  it("spatial: the server re-validates with GEOS and stores analysis, repaired geometry and box", async () => {
    const d = await getDeadLetter(db.pool, ids.bowtie!);
    expect(d.analysis).toMatchObject({ valid_before: false, outcome: "repaired" });
    const feature = { ...(d.payload as Record<string, unknown>), geometry: { type: "Polygon", coordinates: square } };
    const edited = await applyAction(db.pool, ids.bowtie!, { action: "edit", version: d.version, payload: feature }, analyst);
    expect(edited.analysis).toMatchObject({ valid_before: true, outcome: "valid", reason: null, method: "linework" });
    expect(edited).toMatchObject({
      repairedGeometry: null,
      failureClass: "transient",
      classReason: "edited: geometry valid",
      rawEnvelope: d.rawEnvelope,
    });
    const box = await db.pool.query<{ bbox: string }>("SELECT bbox::text AS bbox FROM dead_letter WHERE id = $1", [ids.bowtie]);
    expect(box.rows[0]?.bbox).toBe("(2.36,48.86),(2.35,48.85)");
    // The page's left map keeps drawing what was received: the bowtie, from the raw envelope.
    expect((edited.originalGeometry as { type: string; coordinates: number[][][] }).coordinates[0]).toHaveLength(5);
    expect(d.originalGeometry).toBeNull();
  });

  it("spatial: refuses a payload that is not a Feature at all, naming payload.type, and changes nothing", async () => {
    const d = await getDeadLetter(db.pool, ids.bowtie!);
    const notFeatures: JsonValue[] = [{}, { type: "Polygon", coordinates: square }];
    for (const payload of notFeatures) {
      await expect(applyAction(db.pool, ids.bowtie!, { action: "edit", version: d.version, payload }, analyst)).rejects.toMatchObject({
        code: "validation_failed",
        issues: [{ path: "payload.type" }],
      });
    }
    expect(await getDeadLetter(db.pool, ids.bowtie!)).toMatchObject({
      version: d.version,
      failureClass: d.failureClass,
      payload: d.payload,
    });
  });
});

describe("bulk and counts", () => {
  it("applies a filter on the server after confirming the count, skipping what the state machine refuses", async () => {
    const filter = { kind: ["afc" as const] };
    const matched = await countMatching(db.pool, UNSCOPED, filter);
    expect(matched).toBe(4);
    await expect(
      bulkAction(db.pool, { action: "quarantine", reason: "bad batch", filter, expectedCount: 3 }, analyst),
    ).rejects.toMatchObject({ code: "conflict", details: { matched: 4 } });
    // The dry run says what the run will do (and changes nothing).
    const dry = await bulkAction(db.pool, { action: "quarantine", reason: "x", filter, expectedCount: 4, dryRun: true }, analyst);
    const result = await bulkAction(db.pool, { action: "quarantine", reason: "bad batch", filter, expectedCount: 4 }, analyst);
    // afc3 is already quarantined: the state machine refuses quarantining it again.
    expect(result).toMatchObject({ matched: 4, updated: 3, skipped: 1 });
    expect(Object.keys(result.skippedReasons)[0]).toContain("cannot quarantine a quarantined record");
    expect(dry).toEqual({ ...result, skippedReasons: dry.skippedReasons });
    expect(dry.skippedReasons).toEqual(result.skippedReasons);
  });

  it("counts ids that do not exist as skipped", async () => {
    const dry = await bulkAction(db.pool, { action: "reopen", ids: [ids.afc!, "999999"], dryRun: true }, analyst);
    const result = await bulkAction(db.pool, { action: "reopen", ids: [ids.afc!, "999999"] }, analyst);
    expect(result).toEqual({ matched: 2, updated: 1, skipped: 1, skippedReasons: { "no such dead letter": 1 }, warnings: {} });
    expect(dry).toEqual(result);
  });

  it("keeps the facet rollup equal to the rows after inserts and updates", async () => {
    const facets = await facetCounts(db.pool, UNSCOPED, {});
    const { rows } = await db.pool.query<{ status: string; n: number }>(
      "SELECT status::text, count(*)::int AS n FROM dead_letter GROUP BY 1",
    );
    expect(Object.fromEntries(facets.status.map((b) => [b.value, b.count]))).toEqual(Object.fromEntries(rows.map((r) => [r.status, r.n])));
    expect(facets.total).toBe(6);
    const pending = await facetCounts(db.pool, UNSCOPED, { status: ["pending"] });
    expect(pending.total).toBe(rows.find((r) => r.status === "pending")?.n ?? 0);
    expect(pending.status.length).toBeGreaterThan(1); // disjunctive: other statuses still counted
  });

  it("lists a viewport through the index-only plan with the same result as a plain query", async () => {
    const page = await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ bbox: "2.3,48.8,2.4,48.9" }));
    expect(page.items.map((i) => i.id).sort()).toEqual([ids.bowtie, ids.bowtie2].sort());
    const empty = await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ bbox: "2.3,48.8,2.4,48.9", kind: "afc" }));
    expect(empty.items).toEqual([]);
  });

  it("gives the extent of the matching spatial records for the list map, whatever the map's own view", async () => {
    const { rows } = await db.pool.query<{ w: number; s: number; e: number; n: number; count: number }>(
      `SELECT min((bbox[1])[0]) AS w, min((bbox[1])[1]) AS s, max((bbox[0])[0]) AS e, max((bbox[0])[1]) AS n, count(*)::int AS count
       FROM dead_letter WHERE bbox IS NOT NULL`,
    );
    const all = rows[0]!;
    const extent = await matchingExtent(db.pool, UNSCOPED, { kind: ["spatial"], bbox: [100, 0, 101, 1] });
    expect(extent).toEqual({ bbox: [all.w, all.s, all.e, all.n], count: all.count });
    expect(extent.bbox![0]).toBeLessThanOrEqual(2.35);
    expect(extent.bbox![2]).toBeGreaterThanOrEqual(2.36);
    expect(await matchingExtent(db.pool, UNSCOPED, { kind: ["afc"] })).toEqual({ bbox: null, count: 0 });
  });
});

describe("over HTTP", () => {
  it("answers 409 with the current record and 422 naming the field", async () => {
    const user = await makeUser(db, "analyst");
    const token = await makeToken(db, user.id);
    const { POST } = await import("../../app/api/dead-letters/[id]/actions/route");
    const call = (body: unknown) =>
      POST(
        new Request(`http://localhost/api/dead-letters/${ids.bowtie2}/actions`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        { params: Promise.resolve({ id: ids.bowtie2! }) },
      );
    const stale = await call({ action: "approve", version: 99 });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ error: { code: "conflict", current: { id: ids.bowtie2, version: 1 } } });
    const missing = await call({ action: "quarantine", version: 1 });
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({ error: { issues: [{ path: "reason" }] } });
    // What PostgreSQL cannot store is a 422 naming the field, not a 500 from the database.
    const nul = await call({ action: "quarantine", version: 1, reason: "bad\u0000reason" });
    expect(nul.status).toBe(422);
    expect(await nul.json()).toMatchObject({ error: { issues: [{ path: "reason", message: expect.stringContaining("NUL") }] } });
    // A body nested deeper than anything real is refused before code that walks it recursively sees it.
    let deep: unknown = 1;
    for (let i = 0; i < 2000; i++) deep = { x: deep };
    const nested = await call({ action: "edit", version: 1, payload: { type: "Feature", geometry: null, properties: deep } });
    expect(nested.status).toBe(400);
    expect(await nested.json()).toMatchObject({
      error: { code: "invalid_json", issues: [{ path: "body", message: "nested more than 128 levels deep" }] },
    });
    // Over the route's limit (1 MB for an action), sent chunked (no Content-Length): 413, counted in bytes as it arrives.
    const mb = new TextEncoder().encode("é".repeat(512 * 1024)); // 1 MiB of 2-byte characters
    let sent = 0;
    const chunked = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 40) c.enqueue(mb);
        else c.close();
      },
    });
    const big = await POST(
      new Request(`http://localhost/api/dead-letters/${ids.bowtie2}/actions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: chunked,
        duplex: "half",
      } as RequestInit),
      { params: Promise.resolve({ id: ids.bowtie2! }) },
    );
    expect(big.status).toBe(413);
    expect(sent).toBeLessThan(4); // it stopped reading once past the limit
    // An id beyond bigint is the client's mistake, named, not the database's 500.
    const huge = await POST(
      new Request("http://localhost/api/dead-letters/9999999999999999999/actions", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ action: "approve", version: 1 }),
      }),
      { params: Promise.resolve({ id: "9999999999999999999" }) },
    );
    expect(huge.status).toBe(422);
    expect(await huge.json()).toMatchObject({ error: { issues: [{ path: "id", message: "must be a dead letter id (digits)" }] } });
    const { GET } = await import("../../app/api/dead-letters/route");
    const list = await GET(new Request("http://localhost/api/dead-letters?q=a%00b", { headers: { authorization: `Bearer ${token}` } }), {
      params: Promise.resolve({}),
    });
    expect(list.status).toBe(422);
    expect(await list.json()).toMatchObject({ error: { issues: [{ path: "query.q" }] } });
  });
});

describe("approving taps that still fail their schema", () => {
  it("approves them, and the bulk dry run and run say how many the replay would drop", async () => {
    const [good, bad] = await ingestTexts(db, [
      afcRecord({ eventId: "warn-1", deviceId: "warn-d", at: 1 }),
      afcRecord({ eventId: "warn-2", deviceId: "warn-d", at: 2, fare: "250" }),
    ]);
    const dry = await bulkAction(
      db.pool,
      { action: "approve", ids: [good!, bad!], dryRun: true },
      { scope: UNSCOPED, actor: analyst.actor, requestId: "t", now: new Date() },
    );
    expect(dry).toMatchObject({ matched: 2, updated: 2, skipped: 0, warnings: { [TAP_FAILS_SCHEMA]: 1 } });
    const run = await bulkAction(
      db.pool,
      { action: "approve", ids: [good!, bad!] },
      { scope: UNSCOPED, actor: analyst.actor, requestId: "t", now: new Date() },
    );
    expect(run).toMatchObject({ matched: 2, updated: 2, skipped: 0, warnings: { [TAP_FAILS_SCHEMA]: 1 } });
    expect((await getDeadLetter(db.pool, bad!)).status).toBe("approved");
  });
});

describe("observation times to the microsecond", () => {
  it("are stored as sent, and the list's keyset cursor walks records of one millisecond without skipping or repeating", async () => {
    const at = ["2026-11-07T10:00:00.123100Z", "2026-11-07T10:00:00.123700Z", "2026-11-07T10:00:00.1234+00:00"];
    const lines = at.map((observed, i) =>
      JSON.stringify({
        kind: "spatial",
        source: "micro",
        idempotency_key: `us-${i}`,
        observed_at: observed,
        feature: { type: "Feature", id: `us-${i}`, geometry: { type: "Polygon", coordinates: square }, properties: {} },
      }),
    );
    lines.push(
      JSON.stringify({
        kind: "spatial",
        source: "micro",
        idempotency_key: "us-epoch",
        observed_at: 1794045600.123456,
        feature: { type: "Feature", id: "us-epoch", geometry: { type: "Polygon", coordinates: square }, properties: {} },
      }),
    );
    const stored = await ingestTexts(db, lines);
    const { rows } = await db.pool.query<{ key: string; t: string }>(
      `SELECT idempotency_key AS key, to_char(observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS t FROM dead_letter WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [stored],
    );
    expect(rows).toEqual([
      { key: "us-0", t: "2026-11-07T10:00:00.123100" },
      { key: "us-1", t: "2026-11-07T10:00:00.123700" },
      { key: "us-2", t: "2026-11-07T10:00:00.123400" },
      { key: "us-epoch", t: "2026-11-07T10:00:00.123456" },
    ]);
    for (const order of ["desc", "asc"] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await listDeadLetters(
          db.pool,
          UNSCOPED,
          ListQuerySchema.parse({ source: "micro", order, limit: "1", ...(cursor ? { cursor } : {}) }),
        );
        seen.push(...page.items.map((i) => `${i.idempotencyKey} ${i.observedAt}`));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const expected = [
        "us-0 2026-11-07T10:00:00.123100Z",
        "us-2 2026-11-07T10:00:00.123400Z",
        "us-epoch 2026-11-07T10:00:00.123456Z",
        "us-1 2026-11-07T10:00:00.123700Z",
      ];
      expect(seen, order).toEqual(order === "asc" ? expected : expected.reverse());
    }
    const detail = await getDeadLetter(db.pool, stored[3]!);
    expect(detail.observedAt).toBe("2026-11-07T10:00:00.123456Z");
    // a record's own time bounds a range that holds it, at both ends, in the list and in counts
    const self = detail.observedAt;
    for (const range of [{ to: self }, { from: self }, { from: self, to: self }, { to: "1794045600.123456" }]) {
      const filter = ListQuerySchema.parse({ source: "micro", ...range });
      const keys = (await listDeadLetters(db.pool, UNSCOPED, filter)).items.map((i) => i.idempotencyKey);
      expect(keys, JSON.stringify(range)).toContain("us-epoch");
      expect(await countMatching(db.pool, UNSCOPED, filter), JSON.stringify(range)).toBe(keys.length);
    }
    expect((await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ source: "micro", from: self, to: self }))).items).toHaveLength(
      1,
    );
  });
});

describe("AFC observation time", () => {
  it("a tap time without an offset orders the tap (as UTC); an edited tap_timestamp moves it", async () => {
    const naive = `{"event_id":"e-naive","device_id":"gate-09","fare_amount_cents":275,"tap_timestamp":"2025-06-01T00:00:00"}`;
    let id = "";
    const naiveCtx = { pool: db.pool, actor: analyst.actor, requestId: "naive", threads: null };
    for await (const results of await ingest({ via: "records", records: texts([afc(naive)]) }, naiveCtx)) {
      for (const r of results) if (r.status === "created") id = r.id;
    }
    const d = await getDeadLetter(db.pool, id);
    // Still refused by the gate (the offset is required), but ordered by its own time, not by when it arrived.
    expect(d.failureClass).toBe("transient_schema");
    expect(d.observedAt).toBe("2025-06-01T00:00:00.000000Z");
    const fixed = { ...(d.payload as Record<string, unknown>), tap_timestamp: "2025-06-01T00:00:00.25+02:00" };
    const edited = await applyAction(
      db.pool,
      id,
      { action: "edit", version: d.version, payload: fixed, reason: "device clock was CEST" },
      supervisor,
    );
    expect(edited).toMatchObject({ observedAt: "2025-05-31T22:00:00.250000Z", classReason: "edited into validity" });
    // A tap time the edit leaves unreadable keeps the stored observation time.
    const unreadable = { ...fixed, tap_timestamp: "yesterday" };
    const again = await applyAction(
      db.pool,
      id,
      { action: "edit", version: edited.version, payload: unreadable, reason: "test" },
      supervisor,
    );
    expect(again.observedAt).toBe("2025-05-31T22:00:00.250000Z");
  });
});
