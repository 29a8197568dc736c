import pg from "pg";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ingest as ingestArrival, ingestAll } from "../../lib/dead-letters/ingest/ingest";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { closeDb, createDb, type Db } from "../../lib/db/client";
import { applyMigrations } from "../../lib/db/migrate";
import { connectionFields } from "../../lib/db/pg-adapter";
import { envelopeAnswer } from "../../lib/dead-letters/ingest/arrival-outcome";
import { applyAction } from "../../lib/dead-letters/triage/apply-action";
import { auditedExport } from "../../lib/forensics/export/audited";
import type { ExportFormat } from "../../lib/forensics/forensics-schemas";
import { DEFAULT_MASK_RULES } from "../../lib/masking/rules";
import type { PulledMessage, SourceConnector } from "../../lib/sources/connector";
import { pullSource } from "../../lib/sources/pull-source";
import { afcRecord, ingest, spatialEnvelope } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Export → import round trip into a fresh database (same records, same keys), the other formats' shape, and
// masking in exports by role.

setTestAuthEnv();

let db: Db;
const freshDbs: { db: Db; name: string; admin: pg.Client }[] = [];
const PAN = "4111111111111111";

const bowtie = {
  type: "Polygon",
  coordinates: [
    [
      [0, 0],
      [1, 1],
      [1, 0],
      [0, 1],
      [0, 0],
    ],
  ],
};

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "replay_batch", "ledger_entry", "user"] });
  await ingest(db, [
    spatialEnvelope({ key: "ex-1", observedAt: 10, featureId: "f1" }),
    spatialEnvelope({ key: "ex-2", observedAt: 20, featureId: "f2", geometry: bowtie }), // repaired at ingest
    // pretty-printed, with a lexeme JSON.parse would lose (275.0)
    `{\n  "kind": "afc", "source": "ex", "raw_payload": {"event_id": "e-1", "device_id": "d-1", "fare_amount_cents": 275.0,\n  "tap_timestamp": "2026-11-02T00:00:00Z", "card_pan": "${PAN}"}, "failure_reason": "card_pan: Unrecognized key", "retry_count": 1\n}`,
    afcRecord({ eventId: "e-2", deviceId: "d-2", at: 30 }),
  ]);
  // Taps captured at our boundary: stored bare, wrapped on export.
  const capture = (body: unknown, at: string) =>
    ingestAll(
      { via: "taps", body: Buffer.from(JSON.stringify(body)), format: "json" },
      { pool: db.pool, actor: SYSTEM_ACTOR, requestId: "t", clock: () => new Date(at), threads: null },
    );
  await capture(
    {
      source: "gates",
      taps: [
        { event_id: "cap-1", device_id: "g-1", fare_amount_cents: "310", tap_timestamp: "2026-11-03T10:00:00Z" },
        { device_id: "g-2", fare_amount_cents: 250, tap_timestamp: "2026-11-03T11:00:00Z", account_ref: "acct-9" }, // poison: no event_id
      ],
    },
    "2026-11-03T12:00:00Z",
  );
  // captured twice: one more failure on the same row
  await capture(
    { source: "gates", taps: [{ event_id: "cap-1", device_id: "g-1", fare_amount_cents: "310", tap_timestamp: "2026-11-03T10:00:00Z" }] },
    "2026-11-03T12:05:00Z",
  );
});

afterAll(async () => {
  for (const fresh of freshDbs) {
    await fresh.db.pool.end();
    await fresh.admin.query(`DROP DATABASE IF EXISTS "${fresh.name}" WITH (FORCE)`);
    await fresh.admin.end();
  }
  await db.pool.end();
  await closeDb();
});

async function exportText(
  format: ExportFormat,
  mask = false,
  filter = {},
  more: { order?: "asc" | "desc"; excel?: boolean } = {},
): Promise<{ text: string; records: number; skipped: number }> {
  const { stream, stats, audited } = auditedExport(
    db.pool,
    { scope: UNSCOPED, format, filter, mask: mask ? DEFAULT_MASK_RULES : null, ...more },
    {
      actor: SYSTEM_ACTOR,
      requestId: "t",
      now: new Date(),
    },
    () => {},
  );
  const text = await new Response(stream).text();
  await audited;
  return { text, records: stats.records, skipped: stats.skipped };
}

// first_seen_at is the producer's first_seen_utc when the envelope has one (captured taps get it from the
// wrapper), else the time of ingest: an envelope is exported as received, so a re-import sees it anew.
const COMPARED = `kind, source, idempotency_key, entity_key, event_id, device_id, source_message_id, observed_at,
  CASE WHEN source = 'gates' THEN first_seen_at END AS first_seen_at, first_failure_reason, failure_class, payload,
  analysis->>'outcome' AS outcome, repaired_geometry`;

async function records(pool: pg.Pool) {
  return (await pool.query(`SELECT ${COMPARED} FROM dead_letter ORDER BY kind, idempotency_key`)).rows;
}

/** An empty, migrated database of its own, dropped after the file. */
async function freshDb() {
  const admin = new pg.Client({ ...connectionFields(inject("serverUrl")), database: "postgres" });
  await admin.connect();
  const name = `redrive_test_export_${Date.now().toString(36)}${freshDbs.length}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(inject("serverUrl"));
  url.pathname = `/${name}`;
  await applyMigrations(url.toString());
  const fresh = { db: createDb(url.toString(), 4), name, admin };
  freshDbs.push(fresh);
  return fresh;
}

/** An export's text through the import's own path (POST /api/dead-letters, redrive import). */
async function reimport(target: Db, text: string) {
  async function* chunks() {
    yield new TextEncoder().encode(text);
  }
  const results = [];
  const ctx = { pool: target.pool, actor: SYSTEM_ACTOR, requestId: "reimport", threads: null };
  for await (const batch of await ingestArrival({ via: "envelopes", body: chunks(), format: "ndjson" }, ctx))
    results.push(...batch.map(envelopeAnswer));
  return results;
}

describe("NDJSON export", () => {
  it("re-imports into a fresh database as the same records with the same keys", async () => {
    const { text, records: n, skipped } = await exportText("ndjson");
    expect(n).toBe(6);
    expect(skipped).toBe(0);
    expect(text.split("\n").filter(Boolean)).toHaveLength(6);
    expect(text).toContain('"fare_amount_cents": 275.0'); // the envelope as received, joined onto one line
    expect(text).toContain('{"kind":"afc","source":"gates","raw_payload":{');

    const fresh = await freshDb();
    const results = await reimport(fresh.db, text);
    expect(results.map((r) => r.status)).toEqual(Array(6).fill("created"));
    expect(await records(fresh.db.pool)).toEqual(await records(db.pool));
    // the exhausted-retry count survives the wrapping of captured taps
    const cap = await fresh.db.pool.query("SELECT failure_class, replay_count FROM dead_letter WHERE event_id = 'cap-1'");
    expect(cap.rows).toEqual([{ failure_class: "transient_schema", replay_count: 1 }]);
  });

  it("skips records without an envelope (purged) and counts them", async () => {
    await db.pool.query("UPDATE dead_letter SET raw_envelope = NULL, payload = NULL, status = 'purged' WHERE event_id = 'e-2'");
    const { records: n, skipped } = await exportText("ndjson");
    expect([n, skipped]).toEqual([5, 1]);
  });

  it("masks card data unless asked otherwise, leaving the rest of the envelope as it was", async () => {
    const masked = (await exportText("ndjson", true)).text;
    expect(masked).not.toContain(PAN);
    expect(masked).toContain('"card_pan": "••••••••••••1111"');
    expect(masked).toContain('"account_ref":"•••"');
    expect(masked).toContain('"fare_amount_cents": 275.0');
  });
});

describe("CSV and GeoJSON exports", () => {
  it("writes one CSV row per record with the payload as JSON", async () => {
    const { text, records: n } = await exportText("csv", true);
    const lines = text.split("\r\n").filter(Boolean);
    expect(lines[0]).toMatch(/^id,kind,source,idempotency_key,/);
    expect(lines).toHaveLength(n + 1);
    expect(text).not.toContain(PAN);
  });

  it("writes spatial records as original and repaired features", async () => {
    const { text } = await exportText("geojson");
    const fc = JSON.parse(text) as {
      type: string;
      features: { id: string; geometry: { type: string } | null; properties: Record<string, unknown> }[];
    };
    expect(fc.type).toBe("FeatureCollection");
    // The list's order: newest observation first.
    expect(fc.features.map((f) => [f.properties.idempotency_key, f.properties.role])).toEqual([
      ["ex-2", "original"],
      ["ex-2", "repaired"],
      ["ex-1", "original"],
    ]);
    expect(fc.features[1]!.geometry?.type).toBe("MultiPolygon");
    expect((await exportText("geojson", false, { kind: ["afc"] })).text).toBe('{"type":"FeatureCollection","features":[\n\n]}\n');

    // After an analyst's edit, "original" is still what was received and the edit comes as "edited".
    const { rows } = await db.pool.query<{ id: string; version: number; payload: Record<string, unknown>; geometry: unknown }>(
      "SELECT id::text AS id, version, payload, payload->'geometry' AS geometry FROM dead_letter WHERE idempotency_key = 'ex-1'",
    );
    const row = rows[0]!;
    const square = {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [0.5, 0],
          [0.5, 0.5],
          [0, 0.5],
          [0, 0],
        ],
      ],
    };
    await applyAction(
      db.pool,
      row.id,
      { action: "edit", version: row.version, payload: { ...row.payload, geometry: square } },
      { scope: UNSCOPED, actor: SYSTEM_ACTOR, requestId: "t", now: new Date(), canOverrideIdentity: false },
    );
    const after = JSON.parse((await exportText("geojson")).text) as typeof fc;
    const ex1 = after.features.filter((f) => f.properties.idempotency_key === "ex-1");
    expect(ex1.map((f) => f.properties.role)).toEqual(["original", "edited"]);
    expect(ex1[0]!.geometry).toEqual(row.geometry);
    expect(ex1[1]!.geometry).toEqual(square);
  });
});

describe("GET /api/export", () => {
  it("streams masked for analysts, in clear for an auditor asking for it, and audits each export", async () => {
    const { GET } = await import("../../app/api/export/route");
    const call = async (role: "analyst" | "auditor", qs: string) => {
      const token = await makeToken(db, (await makeUser(db, role)).id);
      return GET(new Request(`http://localhost/api/export?${qs}`, { headers: { authorization: `Bearer ${token}` } }), {
        params: Promise.resolve({}),
      });
    };
    const analyst = await call("analyst", "format=ndjson&kind=afc");
    expect(analyst.headers.get("content-type")).toContain("application/x-ndjson");
    expect(analyst.headers.get("x-redrive-estimated-count")).toBe("4");
    expect(analyst.headers.get("x-redrive-masked")).toBe("true");
    expect(analyst.headers.get("content-disposition")).toMatch(/filename="dead-letters-\d{8}T\d{6}-masked\.ndjson"/);
    const body = await analyst.text();
    expect(body).not.toContain(PAN);
    expect((await call("analyst", "format=ndjson&unmask=1")).status).toBe(403);
    const auditor = await call("auditor", "format=ndjson&kind=afc&unmask=1");
    expect(auditor.headers.get("x-redrive-masked")).toBe("false");
    expect(auditor.headers.get("content-disposition")).toMatch(/filename="dead-letters-\d{8}T\d{6}\.ndjson"/);
    expect(await auditor.text()).toContain(PAN);
    // the audit event is committed before the stream closes, so it is there once the body is read
    const { rows } = await db.pool.query(
      "SELECT actor_role, after FROM audit_event WHERE action = 'dead_letters.exported' AND actor_role IN ('analyst', 'auditor') ORDER BY id",
    );
    expect(rows.map((r) => [r.actor_role, r.after.format, r.after.count, r.after.masked, r.after.completed, r.after.filter])).toEqual([
      ["analyst", "ndjson", 3, true, true, { kind: ["afc"] }],
      ["auditor", "ndjson", 3, false, true, { kind: ["afc"] }],
    ]);
  });
  it("estimates a GeoJSON export by the spatial records it holds (none for kind=afc)", async () => {
    const { GET } = await import("../../app/api/export/route");
    const token = await makeToken(db, (await makeUser(db, "auditor")).id);
    const estimate = async (qs: string) => {
      const res = await GET(new Request(`http://localhost/api/export?${qs}`, { headers: { authorization: `Bearer ${token}` } }), {
        params: Promise.resolve({}),
      });
      await res.text();
      return res.headers.get("x-redrive-estimated-count");
    };
    const { rows } = await db.pool.query<{ spatial: string; all: string }>(
      "SELECT count(*) FILTER (WHERE kind = 'spatial')::text AS spatial, count(*)::text AS all FROM dead_letter",
    );
    expect(rows[0]!.spatial).not.toBe(rows[0]!.all);
    expect(await estimate("format=geojson")).toBe(rows[0]!.spatial);
    expect(await estimate("format=csv")).toBe(rows[0]!.all);
  });

  it("refuses GeoJSON of a filter without spatial records (422 naming format), and excel=1 on anything but CSV", async () => {
    const { GET } = await import("../../app/api/export/route");
    const token = await makeToken(db, (await makeUser(db, "analyst")).id);
    const call = (qs: string) =>
      GET(new Request(`http://localhost/api/export?${qs}`, { headers: { authorization: `Bearer ${token}` } }), {
        params: Promise.resolve({}),
      });
    for (const qs of ["format=geojson&kind=afc", "format=geojson&source=ex", "format=geojson&q=no-such-key"]) {
      const res = await call(qs);
      expect(res.status, qs).toBe(422);
      const body = (await res.json()) as { error: { message: string; issues: { path: string; message: string }[] } };
      expect(body.error.message).toMatch(/^no spatial records match this filter/);
      expect(body.error.issues).toEqual([{ path: "format", message: "no spatial records match this filter" }]);
    }
    const excelNdjson = await call("format=ndjson&excel=1");
    expect(excelNdjson.status).toBe(422);
    expect(JSON.stringify(await excelNdjson.json())).toContain("excel");
    const excel = await call("format=csv&excel=1");
    expect(excel.status).toBe(200);
    const bytes = new Uint8Array(await excel.arrayBuffer());
    expect([...bytes.slice(0, 5)]).toEqual([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("id")]);
  });
});

describe("what every format shares", () => {
  it("writes records in the list's order (newest observation first, or oldest with order=asc)", async () => {
    const keys = (text: string) => [...text.matchAll(/"?(ex-\d)"?,/g)].map((m) => m[1]);
    const csvDesc = (await exportText("csv", false, { source: ["test"] })).text;
    const csvAsc = (await exportText("csv", false, { source: ["test"] }, { order: "asc" })).text;
    expect(keys(csvDesc)).toEqual(["ex-2", "ex-1"]);
    expect(keys(csvAsc)).toEqual(["ex-1", "ex-2"]);
  });

  it("writes every time to the microsecond, in NDJSON, CSV and GeoJSON alike", async () => {
    const micros = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
    const ndjson = (await exportText("ndjson", false, { source: ["gates"] })).text;
    const firstSeen = ndjson
      .trimEnd()
      .split("\n")
      .map((l) => (JSON.parse(l) as { first_seen_utc: string }).first_seen_utc);
    expect(firstSeen.length).toBeGreaterThan(0);
    for (const t of firstSeen) expect(t).toMatch(micros);
    const [header, ...lines] = (await exportText("csv")).text.split("\r\n").filter(Boolean);
    const cols = header!.split(",");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const cells = line.split(",");
      expect(cells[cols.indexOf("observed_at")]).toMatch(micros);
      expect(cells[cols.indexOf("first_seen_at")]).toMatch(micros);
    }
    const fc = JSON.parse((await exportText("geojson")).text) as { features: { properties: { observed_at: string } }[] };
    for (const f of fc.features) expect(f.properties.observed_at).toMatch(micros);
  });
});

describe("NDJSON export of records pulled from a broker", () => {
  it("re-imports bodies without kind, source or reason, bare taps and dead-letter records alike; unreadable ones are skipped", async () => {
    const bodies = [
      // a spatial envelope as a producer published it to the queue: no kind, no reason, a source of its own
      `{"source":"mapper","idempotency_key":"pulled-sp-1","observed_at":"2026-11-04T00:00:00Z","feature":{"type":"Feature","id":"p-1","geometry":${JSON.stringify(bowtie)},"properties":{}}}`,
      // a bare tap (the pull wraps it, as a capture), with a lexeme JSON.parse would lose
      '{"event_id":"pulled-tap-1","device_id":"pd-1","fare_amount_cents":275.0,"tap_timestamp":"2026-11-04T01:00:00Z"}',
      // an AFC dead-letter record without kind
      '{"raw_payload":{"event_id":"pulled-tap-2","device_id":"pd-2","fare_amount_cents":120,"tap_timestamp":"2026-11-04T02:00:00Z","extra":1},"failure_reason":"extra: Unrecognized key"}',
      "this is not json <xml/>",
    ];
    const message = (body: string, i: number, kind: "spatial" | "afc"): PulledMessage => ({
      body: Buffer.from(body),
      receipt: i,
      origin: {
        sourceType: "rabbitmq",
        destination: { type: "rabbitmq", exchange: "work", routingKeys: ["work"], queue: "work" },
        deathReason: "rejected",
        deliveryCount: 1,
        messageId: `m-${kind}-${i}`,
        position: `${kind}-${i}`,
        publishedAt: null,
        diedAt: null,
        headers: {},
        properties: {},
      },
    });
    const queue = (messages: PulledMessage[]): SourceConnector => ({
      provision: async () => {},
      deprovision: async () => {},
      waiting: async () => messages.length,
      take: async (max) => messages.splice(0, max),
      ack: async () => {},
      publish: async () => ({ outcome: "applied" }),
      close: async () => {},
    });
    const opts = { actor: SYSTEM_ACTOR, requestId: "t", clock: () => new Date("2026-11-05T00:00:00Z") };
    await pullSource(
      db.pool,
      { name: "pulled-sp", type: "rabbitmq", kind: "spatial" },
      queue([message(bodies[0]!, 0, "spatial"), message(bodies[3]!, 3, "spatial")]),
      opts,
    );
    await pullSource(
      db.pool,
      { name: "pulled-afc", type: "rabbitmq", kind: "afc" },
      queue([1, 2, 3].map((i) => message(bodies[i]!, i, "afc"))),
      opts,
    );

    const pulled = ["pulled-sp", "pulled-afc"];
    const lines: string[] = [];
    let skipped = 0;
    for (const origin of pulled) {
      const out = await exportText("ndjson", false, { origin });
      lines.push(...out.text.split("\n").filter(Boolean));
      skipped += out.skipped;
    }
    expect([lines.length, skipped]).toEqual([3, 2]);
    const fresh = await freshDb();
    expect((await reimport(fresh.db, `${lines.join("\n")}\n`)).map((r) => r.status)).toEqual(["created", "created", "created"]);
    // The broker's provenance (origin, message id) stays with the pulled record: an envelope cannot carry it.
    const compared = `SELECT ${COMPARED.replace("source_message_id", "NULL AS source_message_id")} FROM dead_letter`;
    const readable = `${compared} WHERE idempotency_key IS NOT NULL ORDER BY kind, idempotency_key`;
    const mine = await db.pool.query(
      `${compared} WHERE origin_source = ANY($1) AND idempotency_key IS NOT NULL ORDER BY kind, idempotency_key`,
      [pulled],
    );
    expect(mine.rows).toHaveLength(3);
    expect((await fresh.db.pool.query(readable)).rows).toEqual(mine.rows);
  });
});
