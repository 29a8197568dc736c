import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, getDb, type Db } from "../../lib/db/client";
import { NormalizePool } from "../../lib/dead-letters/ingest/normalize-pool";
import { normalizeChunk } from "../../lib/dead-letters/ingest/normalize";
import { envelopeAnswer, type IngestResult } from "../../lib/dead-letters/ingest/arrival-outcome";
import { ingest as ingestEntry } from "../../lib/dead-letters/ingest/ingest";
import { streamEnvelopes } from "../../lib/dead-letters/ingest/pipeline";
import { storeBatch } from "../../lib/dead-letters/ingest/store-arrivals";
import type { GeometryLimits } from "../../lib/spatial/geometry-limits";
import type { RecordText } from "../../lib/dead-letters/ingest/split";
import { DEFAULT_GEOMETRY_LIMITS } from "../../lib/spatial/geometry-limits";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

setTestAuthEnv();

const actor = { id: null, email: "test", role: "system" };

async function* texts(lines: string[]): AsyncGenerator<RecordText> {
  let index = 0;
  for (const text of lines) yield { index: index++, text };
}

/**
 * Through the entry point, normalized on this thread unless given threads; with `limits` other than the process's,
 * through its envelope stream directly (the entry point applies the process's own).
 */
async function ingest(
  db: Db,
  lines: string[],
  batchSize = 500,
  extra: { normalizer?: NormalizePool | null; limits?: GeometryLimits } = {},
): Promise<IngestResult[]> {
  const out: IngestResult[] = [];
  const threads = extra.normalizer ?? null;
  const outcomes = extra.limits
    ? streamEnvelopes(db.pool, texts(lines), {
        actor,
        requestId: "t",
        clock: () => new Date(),
        batchSize,
        normalizer: threads,
        limits: extra.limits,
      })
    : await ingestEntry({ via: "records", records: texts(lines) }, { pool: db.pool, actor, requestId: "t", batchSize, threads });
  for await (const r of outcomes) out.push(...r.map(envelopeAnswer));
  return out;
}

const square = [
  [
    [2.35, 48.85],
    [2.36, 48.85],
    [2.36, 48.86],
    [2.35, 48.86],
    [2.35, 48.85],
  ],
];
const bowtie = [
  [
    [0, 0],
    [2, 2],
    [2, 0],
    [0, 2],
    [0, 0],
  ],
];

function spatial(key: string | null, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    kind: "spatial",
    source: "parcels",
    ...(key ? { idempotency_key: key } : {}),
    observed_at: 1_700_000_000,
    feature: { type: "Feature", id: "parcel-1", geometry: { type: "Polygon", coordinates: square }, properties: {} },
    dead_letter_reason: "HTTP 503",
    replay_count: 0,
    ...extra,
  });
}

const afc = (tap: string, extra = "") => `{"kind":"afc","source":"gates","raw_payload":${tap}${extra}}`;
const TAP = '{"event_id":"e-1","device_id":"d-1","fare_amount_cents":"275","tap_timestamp":"2026-11-01T08:00:00Z"}';

let db: Db;
beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "failure_attempt"] });
});
afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("ingest pipeline", () => {
  it("answers in input order: created, duplicate, rejected — one row per key", async () => {
    const results = await ingest(db, [
      spatial("k-1"),
      "{not json",
      spatial("k-1", { dead_letter_reason: "again" }),
      JSON.stringify({ kind: "other" }),
      afc(TAP),
    ]);
    expect(results.map((r) => [r.index, r.status])).toEqual([
      [0, "created"],
      [1, "rejected"],
      [2, "duplicate"],
      [3, "rejected"],
      [4, "created"],
    ]);
    expect(results[2]).toMatchObject({ id: (results[0] as { id: string }).id });
    expect(results[3]).toMatchObject({ errors: [{ path: "kind" }] });
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM dead_letter WHERE idempotency_key = 'k-1'");
    expect(rows[0].n).toBe(1);
  });

  it("keeps the first failure reason and appends every later one to the history", async () => {
    await ingest(db, [spatial("k-2", { dead_letter_reason: "first" })]);
    await ingest(db, [spatial("k-2", { dead_letter_reason: "second" })]);
    await ingest(db, [spatial("k-2", { dead_letter_reason: "third" })]);
    const { rows } = await db.pool.query(
      `SELECT d.first_failure_reason, d.reason, d.failure_count, array_agg(f.reason ORDER BY f.attempt) AS history
       FROM dead_letter d JOIN failure_attempt f ON f.dead_letter_id = d.id WHERE d.idempotency_key = 'k-2'
       GROUP BY d.id`,
    );
    expect(rows[0]).toEqual({ first_failure_reason: "first", reason: "third", failure_count: 3, history: ["first", "second", "third"] });
  });

  it("turns an AFC record into poison when its retries are exhausted, in quarantine", async () => {
    const tap = TAP.replace("e-1", "e-exhaust");
    for (let i = 0; i < 4; i++) await ingest(db, [afc(tap)]);
    const { rows } = await db.pool.query(
      `SELECT failure_class, status, class_reason, first_failure_reason, failure_count FROM dead_letter WHERE event_id = 'e-exhaust'`,
    );
    expect(rows[0]).toMatchObject({ failure_class: "poison", status: "quarantined", failure_count: 4 });
    expect(rows[0].class_reason).toMatch(/^exhausted retries: \d+ errors$/);
    expect(rows[0].first_failure_reason).toBe("fare_amount_cents: Expected integer, received string");
  });

  it("stores a spatial record without a key as poison, and an invalid geometry with its validity", async () => {
    const [noKey, invalid] = await ingest(db, [
      spatial(null),
      spatial("k-bowtie", { feature: { type: "Feature", geometry: { type: "Polygon", coordinates: bowtie }, properties: {} } }),
    ]);
    const rows = await db.pool.query(
      `SELECT id::text, failure_class, status, class_reason, analysis, bbox IS NOT NULL AS has_bbox FROM dead_letter WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [[(noKey as { id: string }).id, (invalid as { id: string }).id]],
    );
    expect(rows.rows[0]).toMatchObject({ failure_class: "poison", status: "quarantined", class_reason: "missing idempotency key" });
    expect(rows.rows[1].analysis).toMatchObject({ valid_before: false, outcome: "repaired" });
    expect(rows.rows[1].analysis.reason).toMatch(/Self-intersection/);
    expect(rows.rows[1].has_bbox).toBe(true);
  });

  it("reads a bare NaN / Infinity as Python's json.dumps wrote it: the geometry or the tap explains it, the text stays as received", async () => {
    const nanGeometry = spatial("k-nan").replace("[[[2.35,48.85],[2.36,48.85]", "[[[2.35,48.85],[NaN,48.85]");
    const infPoint = spatial("k-inf", {
      feature: { type: "Feature", geometry: { type: "Point", coordinates: [0, 0] }, properties: {} },
    }).replace("[0,0]", "[-Infinity,0]");
    const nanFare = afc(TAP.replace("e-1", "e-nan").replace('"275"', "NaN"));
    const results = await ingest(db, [nanGeometry, infPoint, nanFare]);
    expect(results.map((r) => r.status)).toEqual(["created", "created", "created"]);
    const { rows } = await db.pool.query(
      `SELECT idempotency_key, kind, failure_class, analysis, raw_envelope, reason, payload FROM dead_letter WHERE idempotency_key IN ('k-nan', 'k-inf') OR event_id = 'e-nan' ORDER BY id`,
    );
    expect(rows[0].analysis).toMatchObject({
      valid_before: false,
      outcome: "repaired",
      reason: expect.stringContaining("Invalid Coordinate (NaN, 48.85)"),
    });
    expect(rows[0].raw_envelope).toBe(nanGeometry);
    expect(rows[1]).toMatchObject({
      failure_class: "poison",
      analysis: { outcome: "dropped", reason: expect.stringContaining("Invalid Coordinate (-Infinity, 0)") },
    });
    expect(rows[2]).toMatchObject({ kind: "afc", reason: expect.stringContaining("fare_amount_cents") });
    expect(rows[2].payload.fare_amount_cents).toBeNull(); // jsonb has no NaN; the text keeps it
    expect(rows[2].raw_envelope).toContain('"fare_amount_cents":NaN');
  });

  it("with stores overlapping, a key repeated in a later batch is that batch's duplicate, and commits keep input order", async () => {
    // Batches of 3: keys r-0…r-8 once each, then r-1 and r-4 again in later batches (one while its first batch
    // may still be in flight), and a repeat inside one batch.
    const keys = ["r-0", "r-1", "r-2", "r-3", "r-1", "r-5", "r-4", "r-4", "r-6", "r-7", "r-8", "r-2"];
    const results = await ingest(
      db,
      keys.map((k, i) => spatial(k, { dead_letter_reason: `reason ${i}` })),
      3,
    );
    expect(results.map((r) => r.index)).toEqual(keys.map((_, i) => i));
    const firstIndex = new Map<string, number>();
    keys.forEach((k, i) => firstIndex.set(k, firstIndex.get(k) ?? i));
    expect(results.map((r) => r.status)).toEqual(keys.map((k, i) => (firstIndex.get(k) === i ? "created" : "duplicate")));
    // The row holds the first record's reason; ids and the audit chain follow input order.
    const { rows } = await db.pool.query<{ key: string; first_failure_reason: string; failure_count: number }>(
      `SELECT idempotency_key AS key, first_failure_reason, failure_count FROM dead_letter WHERE idempotency_key LIKE 'r-%' ORDER BY id`,
    );
    expect(rows.map((r) => r.key)).toEqual(["r-0", "r-1", "r-2", "r-3", "r-5", "r-4", "r-6", "r-7", "r-8"]);
    expect(rows.find((r) => r.key === "r-4")).toMatchObject({ first_failure_reason: "reason 6", failure_count: 2 });
    expect(rows.find((r) => r.key === "r-2")).toMatchObject({ first_failure_reason: "reason 2", failure_count: 2 });
    // One ingest event per stored batch, listing its records in id order.
    const audit = await db.pool.query<{ key: string }>(
      `SELECT r.e->>'idempotencyKey' AS key
       FROM audit_event a, jsonb_array_elements(a.after->'records') WITH ORDINALITY AS r(e, ord)
       WHERE a.action = 'dead_letter.ingested' AND r.e->>'idempotencyKey' LIKE 'r-%' ORDER BY a.id, r.ord`,
    );
    expect(audit.rows.map((r) => r.key)).toEqual(rows.map((r) => r.key));
  });

  it("rejects a record holding NUL or an unpaired surrogate on its own, and stores backslashes, tabs and newlines as sent", async () => {
    const tricky = "line 1\nline 2\ttab \\ back \\N \\u0000 as text, 😀";
    const results = await ingest(db, [
      spatial("nul-1", { dead_letter_reason: "bad\u0000reason" }),
      afc('{"event_id":"e-\\udc00","device_id":"d-1","fare_amount_cents":"275"}'),
      afc(JSON.stringify('{"event_id":"e-\\u0000","device_id":"d-1","fare_amount_cents":"275"}')), // raw_payload as a string of JSON
      spatial("esc-1", {
        dead_letter_reason: tricky,
        feature: { type: "Feature", id: "e", geometry: { type: "Point", coordinates: [1, 2] }, properties: { n: tricky } },
      }),
    ]);
    expect(results[0]).toEqual({
      index: 0,
      status: "rejected",
      errors: [{ path: "dead_letter_reason", message: "contains the NUL character (\\u0000), which cannot be stored" }],
      key: "nul-1",
    });
    expect(results[1]).toEqual({
      index: 1,
      status: "rejected",
      errors: [{ path: "raw_payload.event_id", message: expect.stringContaining("unpaired UTF-16 surrogate") }],
    });
    expect(results[2]).toEqual({
      index: 2,
      status: "rejected",
      errors: [{ path: "raw_payload.event_id", message: expect.stringContaining("NUL") }],
    });
    expect(results[3]).toMatchObject({ status: "created" });
    const { rows } = await db.pool.query<{ reason: string; n: string; raw: string }>(
      "SELECT reason, payload->'properties'->>'n' AS n, raw_envelope AS raw FROM dead_letter WHERE idempotency_key = 'esc-1'",
    );
    expect(rows[0]).toMatchObject({ reason: tricky, n: tricky });
    expect(JSON.parse(rows[0]?.raw as string).dead_letter_reason).toBe(tricky);
    expect((await db.pool.query("SELECT 1 FROM dead_letter WHERE idempotency_key = 'nul-1'")).rowCount).toBe(0);
  });

  it("rejects on its own a record whose key or id is too long to index, deeply nested or a huge antimeridian ring; a long reason is stored", async () => {
    const long = "k".repeat(6000);
    const stackTrace = `Traceback (most recent call last): ${"x".repeat(8000)}`;
    let deep: unknown = 1;
    for (let i = 0; i < 2000; i++) deep = [deep];
    // 300k vertices walking east across the antimeridian and back (a spread of their longitudes overflowed the stack):
    // past the default vertex limit (200k), so this ingest raises it, as REDRIVE_MAX_VERTICES would.
    const ring: number[][] = [];
    for (let i = 0; i < 150_000; i++) ring.push([170 + (i / 150_000) * 20, 10]);
    for (let i = 150_000; i > 0; i--) ring.push([170 + (i / 150_000) * 20, 11]);
    ring.push(ring[0]!);
    const wrapped = ring.map(([x, y]) => [x! > 180 ? x! - 360 : x!, y!]);
    const results = await ingest(
      db,
      [
        spatial("long-ok-1"),
        spatial(long),
        afc(`{"event_id":"${long}","device_id":"d-1","fare_amount_cents":"275"}`),
        spatial("long-source", { source: "s".repeat(1200) }),
        spatial("long-reason", { dead_letter_reason: stackTrace }),
        spatial("deep-1", {
          feature: { type: "Feature", id: "d", geometry: { type: "Point", coordinates: [1, 2] }, properties: { deep } },
        }),
        spatial("big-am", {
          feature: { type: "Feature", id: "am", geometry: { type: "Polygon", coordinates: [wrapped] }, properties: {} },
        }),
        spatial("long-ok-2"),
        // deep enough to overflow a recursive parser's stack before the depth check sees it
        `{"kind":"spatial","idempotency_key":"deep-2","observed_at":1,"feature":${"[".repeat(20_000)}1${"]".repeat(20_000)}}`,
      ],
      500,
      { limits: { ...DEFAULT_GEOMETRY_LIMITS, maxVertices: 400_000 } },
    );
    expect(results.map((r) => r.status)).toEqual([
      "created",
      "rejected",
      "rejected",
      "rejected",
      "created",
      "rejected",
      "created",
      "created",
      "rejected",
    ]);
    expect(results[8]).toMatchObject({ errors: [{ path: "(root)", message: "nested more than 128 levels deep" }] });
    expect(results[1]).toMatchObject({ errors: [{ path: "idempotency_key", message: "is too long: 6,000 bytes (UTF-8), at most 1,000" }] });
    expect(results[2]).toMatchObject({ errors: [{ path: "event_id", message: expect.stringContaining("is too long") }] });
    expect(results[3]).toMatchObject({ errors: [{ path: "source", message: expect.stringContaining("is too long") }] });
    expect(results[5]).toMatchObject({ errors: [{ path: "(root)", message: "nested more than 128 levels deep" }] });
    const { rows } = await db.pool.query<{ reason: string; reason_group: string }>(
      "SELECT reason, reason_group FROM dead_letter WHERE idempotency_key = 'long-reason'",
    );
    expect(rows[0]?.reason).toBe(stackTrace);
    expect(rows[0]?.reason_group).toHaveLength(500);
    const am = await db.pool.query<{ crosses: boolean }>(
      "SELECT (analysis->>'crosses_antimeridian')::boolean AS crosses FROM dead_letter WHERE idempotency_key = 'big-am'",
    );
    expect(am.rows[0]?.crosses).toBe(true);
  }, 120_000);

  it("a COPY and a staged insert of the same new keys, at once, neither deadlock nor both create", async () => {
    // Mixed kinds and keys whose byte order differs from a collation's: both paths must take the unique index
    // in one order. Run a few times: the race is a matter of timing.
    const lines = Array.from({ length: 3000 }, (_, i) =>
      i % 2 ? spatial(`mix-${i}-Z`) : afc(TAP.replace("e-1", `mix-${i}-a`).replace("d-1", `d-${i}`)),
    );
    for (let round = 0; round < 3; round++) {
      const batch = await normalizeChunk(
        lines.map((text, index) => ({ index, text: text.replace(/mix-/g, `mix${round}-`) })),
        new Date(),
        {},
      );
      const [viaCopy, viaStage] = await Promise.all([
        storeBatch(db.pool, batch, new Date(), { actor, requestId: "copy" }, { copyHint: { storedKeys: false } }),
        storeBatch(db.pool, batch, new Date(), { actor, requestId: "stage" }, { copyHint: { storedKeys: true } }),
      ]);
      viaCopy.forEach((r, i) => {
        const statuses = [r.status, viaStage[i]?.status].sort();
        expect(statuses).toEqual(["created", "duplicate"]);
      });
    }
  });

  it("normalizing on worker threads answers and stores exactly what this thread does, in input order", async () => {
    // 130 records in chunks of 40 (threads take chunks of 32 and more; the 10-record tail stays on this thread).
    const mixed = (p: string) =>
      Array.from({ length: 130 }, (_, i) => {
        switch (i % 7) {
          case 0:
            return spatial(`${p}-${i}`, {
              feature: { type: "Feature", id: `f-${i % 5}`, geometry: { type: "Polygon", coordinates: bowtie }, properties: {} },
            });
          case 1:
            return "{not json";
          case 2:
            return spatial(`${p}-${i - 2}`, { dead_letter_reason: `again ${i}` }); // a repeat of case 0's key
          case 3:
            return afc(TAP.replace('"e-1"', `"${p}-e-${i}"`));
          case 4:
            return spatial(null);
          case 5:
            return JSON.stringify({ kind: "spatial", idempotency_key: `${p}-${i}`, observed_at: "yesterday", feature: null });
          default:
            return spatial(`${p}-${i}`, {
              crs: "EPSG:3857",
              feature: { type: "Feature", geometry: { type: "Point", coordinates: [261600, 6250000] }, properties: {} },
            });
        }
      });
    const pool = NormalizePool.create(2);
    expect(pool?.size).toBe(2);
    try {
      const here = await ingest(db, mixed("zq1"), 40);
      const threaded = await ingest(db, mixed("zq2"), 40, { normalizer: pool });
      // A rejection names the envelope's key, which differs between the two runs only by its prefix.
      const shape = (rs: IngestResult[]) =>
        rs.map((r) =>
          r.status === "rejected"
            ? { ...r, ...(r.key ? { key: r.key.replace(/^zq\d/, "zq") } : {}) }
            : { index: r.index, status: r.status },
        );
      expect(shape(threaded)).toEqual(shape(here));
      expect(here.filter((r) => r.status === "created").length).toBeGreaterThan(40);
      const rows = async (p: string) =>
        (
          await db.pool.query(
            `SELECT CASE kind WHEN 'afc' THEN 'sha256:' || length(idempotency_key) ELSE replace(idempotency_key, $1, 'K') END AS key, kind, entity_key,
           failure_class, class_reason, reason, analysis, repaired_geometry, bbox::text AS bbox, replace(payload::text, $1, 'K') AS payload,
           replace(raw_envelope, $1, 'K') AS raw, failure_count
         FROM dead_letter WHERE idempotency_key LIKE $1 || '%' OR raw_envelope LIKE '%' || $1 || '-e-%' ORDER BY id`,
            [p],
          )
        ).rows;
      expect(await rows("zq2")).toEqual(await rows("zq1"));
    } finally {
      await pool?.close();
    }
  });

  it("refuses to rewrite what was received", async () => {
    await expect(db.pool.query("UPDATE dead_letter SET raw_envelope = 'x' WHERE idempotency_key = 'k-1'")).rejects.toThrow(/immutable/);
    await expect(db.pool.query("UPDATE dead_letter SET first_failure_reason = 'x' WHERE idempotency_key = 'k-1'")).rejects.toThrow(
      /immutable/,
    );
    // Named among other columns, and the key itself (the guard fires for statements that name a guarded column).
    await expect(
      db.pool.query("UPDATE dead_letter SET status = 'approved', raw_envelope = raw_envelope || ' ' WHERE idempotency_key = 'k-1'"),
    ).rejects.toThrow(/immutable/);
    await expect(db.pool.query("UPDATE dead_letter SET idempotency_key = 'k-other' WHERE idempotency_key = 'k-1'")).rejects.toThrow(
      /fixed at first ingest/,
    );
    // Setting the key to itself changes nothing, and is allowed.
    await expect(
      db.pool.query("UPDATE dead_letter SET idempotency_key = idempotency_key WHERE idempotency_key = 'k-1'"),
    ).resolves.toBeTruthy();
  });

  it("audits every ingest: each record is listed in its batch's event, which its first failure points at", async () => {
    // Fresh statistics: without them (autovacuum off, as on some servers) the planner re-read each event's
    // jsonb per record and this check took minutes.
    await db.pool.query("ANALYZE dead_letter, failure_attempt, audit_event");
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM dead_letter d
       JOIN failure_attempt f ON f.dead_letter_id = d.id AND f.attempt = 1
       JOIN audit_event a ON a.id = f.audit_event_id
       WHERE a.action = 'dead_letter.ingested' AND a.target_id IS NULL
         AND a.after->'records' @> jsonb_build_array(jsonb_build_object('id', d.id::text, 'idempotencyKey', d.idempotency_key))`,
    );
    const total = await db.pool.query("SELECT count(*)::int AS n FROM dead_letter");
    expect(rows[0].n).toBe(total.rows[0].n);
    // One event per stored batch, not per record; its count matches its list.
    const events = await db.pool.query(
      `SELECT count(*)::int AS n, bool_and((after->>'count')::int = jsonb_array_length(after->'records')) AS counted
       FROM audit_event WHERE action = 'dead_letter.ingested'`,
    );
    expect(events.rows[0].n).toBeLessThan(total.rows[0].n);
    expect(events.rows[0].counted).toBe(true);
  });
});

describe("POST /api/dead-letters", () => {
  let token: string;
  beforeAll(async () => {
    process.env.DATABASE_URL = db.url;
    const producer = await makeUser(getDb(), "producer");
    token = await makeToken(getDb(), producer.id);
  });

  async function post(body: string | Uint8Array<ArrayBuffer>, contentType = "application/json", auth = true): Promise<Response> {
    const { POST } = await import("../../app/api/dead-letters/route");
    const headers: Record<string, string> = { "content-type": contentType };
    if (auth) headers.authorization = `Bearer ${token}`;
    return POST(new Request("http://localhost/api/dead-letters", { method: "POST", headers, body }), { params: Promise.resolve({}) });
  }

  it("keeps what was received byte for byte: an NDJSON line that is not UTF-8 is rejected alone, a JSON body that is not is a 400", async () => {
    const enc = new TextEncoder();
    // 0xE9 alone before the closing brace: "é" in Latin-1, not UTF-8
    const bytes = new Uint8Array([
      ...enc.encode(`${spatial("utf8-ok-1")}\n`),
      ...enc.encode(spatial("utf8-bad").slice(0, -1)),
      0xe9,
      ...enc.encode("}\n"),
      ...enc.encode(`${spatial("utf8-ok-2")}\n`),
    ]);
    const res = await post(bytes, "application/x-ndjson");
    expect(res.status).toBe(200);
    const { results } = (await res.json()) as { results: IngestResult[] };
    expect(results.map((r) => r.status)).toEqual(["created", "rejected", "created"]);
    expect(results[1]).toMatchObject({ errors: [{ path: "(root)", message: expect.stringContaining("not valid UTF-8") }] });
    const json = await post(new Uint8Array([...enc.encode(`[${spatial("utf8-json").slice(0, -1)}`), 0xe9, ...enc.encode("}]")]));
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: { code: "invalid_json", issues: [{ path: "body", message: "not valid UTF-8" }] } });
    expect((await db.pool.query("SELECT 1 FROM dead_letter WHERE idempotency_key IN ('utf8-bad', 'utf8-json')")).rowCount).toBe(0);
  });

  it("rejects a record over 16 MB by itself (413 when it is the whole body), without reading it whole", async () => {
    const huge = `{"kind":"afc","raw_payload":{},"failure_reason":"${"A".repeat(17 * 1024 * 1024)}"}`;
    const nd = await post(`${spatial("big-1")}\n${huge}\n${spatial("big-2")}\n`, "application/x-ndjson");
    const { results } = (await nd.json()) as { results: IngestResult[] };
    expect(results.map((r) => r.status)).toEqual(["created", "rejected", "created"]);
    expect(results[1]).toMatchObject({ errors: [{ path: "(root)", message: expect.stringContaining("larger than 16 MB") }] });
    const one = await post(huge);
    expect(one.status).toBe(413);
    expect(await one.json()).toMatchObject({ error: { code: "payload_too_large", issues: [{ path: "body" }] } });
  });

  it("takes a JSON array and answers results in input order", async () => {
    const res = await post(`[${spatial("http-1")}, {"kind":"afc"}, ${spatial("http-1")}]`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: IngestResult[] };
    expect(body.results.map((r) => r.status)).toEqual(["created", "rejected", "duplicate"]);
    expect(body.results[1]).toMatchObject({ errors: [{ path: "raw_payload" }] });
  });

  it("takes a single envelope holding a bare NaN (Python's json.dumps), not a 400", async () => {
    const res = await post(spatial("http-nan").replace("[[[2.35,48.85],[2.36,48.85]", "[[[2.35,48.85],[NaN,48.85]"));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { results: IngestResult[] }).results).toEqual([expect.objectContaining({ status: "created" })]);
  });

  it("numbers NDJSON results by the body's line too (blank lines counted), and names a rejected envelope's key", async () => {
    const bad = spatial("http-lines-bad", { observed_at: "yesterday" });
    const nd = await post(`${spatial("http-lines-1")}\n\n  \n${bad}\n${spatial("http-lines-5")}\n`, "application/x-ndjson");
    const results = ((await nd.json()) as { results: IngestResult[] }).results;
    expect(results.map((r) => [r.index, r.line, r.status])).toEqual([
      [0, 1, "created"],
      [1, 4, "rejected"],
      [2, 5, "created"],
    ]);
    expect(results[1]).toMatchObject({ key: "http-lines-bad", errors: [{ path: "observed_at" }] });
    expect(Object.keys(results[1]!).slice(0, 2)).toEqual(["index", "line"]);
  });

  it("takes NDJSON and a single envelope", async () => {
    const nd = await post(`${spatial("http-2")}\n${afc(TAP.replace("e-1", "e-http"))}\n`, "application/x-ndjson");
    expect(((await nd.json()) as { results: IngestResult[] }).results.map((r) => r.status)).toEqual(["created", "created"]);
    const one = await post(spatial("http-3"));
    expect(((await one.json()) as { results: IngestResult[] }).results).toEqual([expect.objectContaining({ index: 0, status: "created" })]);
  });

  it("answers 400 for a JSON body that is not JSON at all, storing nothing; a bad record among others rejects only itself", async () => {
    const before = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM dead_letter");
    for (const bad of ['{"kind":', `[${spatial("http-4").slice(0, 40)}`, "not json", "", "  \n"]) {
      const res = await post(bad);
      expect(res.status, bad).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "invalid_json", issues: [{ path: "body" }] } });
    }
    const after = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM dead_letter");
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
    // Two records, the second cut off: the first is stored, the second rejected, in a 200.
    const mixed = await post(`[${spatial("http-5")}, {"kind":`);
    expect(mixed.status).toBe(200);
    expect(((await mixed.json()) as { results: IngestResult[] }).results.map((r) => r.status)).toEqual(["created", "rejected"]);
    // Cut right after a whole element: that element stands, and the cut is a rejected result, not silence.
    const cut = await post(`[${spatial("http-6")},`);
    expect(cut.status).toBe(200);
    expect(((await cut.json()) as { results: IngestResult[] }).results).toEqual([
      expect.objectContaining({ index: 0, status: "created" }),
      {
        index: 1,
        status: "rejected",
        errors: [{ path: "(root)", message: "the JSON array ends without its closing ]: the body was cut off here" }],
      },
    ]);
    // An empty array is an empty batch.
    expect(await (await post("[]")).json()).toEqual({ results: [] });
    // Valid JSON that is not an envelope is a record, rejected with its reasons.
    const value = await post("42");
    expect(value.status).toBe(200);
    expect(((await value.json()) as { results: IngestResult[] }).results).toEqual([
      expect.objectContaining({ index: 0, status: "rejected" }),
    ]);
  });

  it("a broken JSON array loses nothing: its whole elements are stored, every broken part has a rejected result", async () => {
    const statuses = async (body: string) =>
      ((await (await post(body)).json()) as { results: IngestResult[] }).results.map((r) => r.status);
    const stored = async (keys: string[]) =>
      (await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM dead_letter WHERE idempotency_key = ANY($1)", [keys])).rows[0]?.n;
    const body = `[${spatial("broken-1")}, nope, ${spatial("broken-2")}, {"kind":`;
    expect(await statuses(body)).toEqual(["created", "rejected", "created", "rejected"]);
    expect(await stored(["broken-1", "broken-2"])).toBe(2);
    // Sending the whole body again (after fixing it, or as it was) is safe: what was stored answers duplicate.
    expect(await statuses(body)).toEqual(["duplicate", "rejected", "duplicate", "rejected"]);
    // An element with an unbalanced quote runs to the end of the body: one rejected result, nothing after it stored.
    expect(await statuses(`[${spatial("broken-3")}, {"kind": "spa, ${spatial("broken-4")}]`)).toEqual(["created", "rejected"]);
    expect(await stored(["broken-3", "broken-4"])).toBe(1);
  });

  it("refuses an unknown content type and a missing token with JSON errors", async () => {
    const res = await post("a=b", "application/x-www-form-urlencoded");
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: { issues: [{ path: "content-type" }] } });
    expect((await post(spatial("x"), "application/json", false)).status).toBe(401);
  });
});
