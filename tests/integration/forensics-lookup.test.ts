import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { closeDb, type Db } from "../../lib/db/client";
import { applyAction } from "../../lib/dead-letters/triage/apply-action";
import { lookup } from "../../lib/forensics/lookup";
import { quarantineGroups } from "../../lib/dead-letters/query/quarantine-groups";
import { purgeQuarantined, releaseQuarantined } from "../../lib/dead-letters/triage/release-purge";
import { LookupQuerySchema } from "../../lib/forensics/forensics-schemas";
import { QuarantineBodySchema } from "../../lib/dead-letters/contract/quarantine";
import { ServedDeadLetterDetailSchema } from "../../lib/dead-letters/contract/detail";
import { DEFAULT_MASK_RULES } from "../../lib/masking/rules";
import { EPOCH, ingest, spatialEnvelope } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv, signIn } from "./auth-helpers";
import { testDb } from "./helpers";

// Lookup by every identifier a record has, by place and time, and in the ledger; quarantine release and purge;
// revealing a masked field.

setTestAuthEnv();

let db: Db;
const PAN = "4111111111111111";
const ctx = () => ({ scope: UNSCOPED, actor: SYSTEM_ACTOR, requestId: "t", now: new Date() });
const q = (raw: Record<string, unknown>) => LookupQuerySchema.parse(raw);
const ids: Record<string, string> = {};

const square = (x: number, y: number, d = 0.001) => ({
  type: "Polygon",
  coordinates: [
    [
      [x, y],
      [x + d, y],
      [x + d, y + d],
      [x, y + d],
      [x, y],
    ],
  ],
});
const tap = (o: { eventId?: string; deviceId?: string; at: string; extra?: Record<string, unknown> }) => ({
  ...(o.eventId ? { event_id: o.eventId } : {}),
  ...(o.deviceId ? { device_id: o.deviceId } : {}),
  fare_amount_cents: 250,
  tap_timestamp: o.at,
  ...o.extra,
});

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "replay_batch", "ledger_entry", "user"] });
  const envelopes = [
    spatialEnvelope({ key: "lk-paris", observedAt: 100, featureId: "paris", geometry: square(2.35, 48.85) }),
    spatialEnvelope({ key: "lk-berlin", observedAt: 200, featureId: "berlin", geometry: square(13.4, 52.52) }),
    JSON.stringify({
      ...JSON.parse(spatialEnvelope({ key: "lk-msg", observedAt: 300, featureId: "msg", geometry: square(2.36, 48.86) })),
      source_message_id: "msg-123",
    }),
    JSON.stringify({
      kind: "afc",
      source: "lk",
      raw_payload: tap({ eventId: "ev-1", deviceId: "dev-A", at: "2026-11-05T08:00:00Z", extra: { card_pan: PAN } }),
      failure_reason: "card_pan: Unrecognized key",
    }),
    JSON.stringify({
      kind: "afc",
      source: "lk",
      raw_payload: tap({ eventId: "ev-2", deviceId: "dev-A", at: "2026-11-06T08:00:00Z", extra: { x: 1 } }),
      failure_reason: "x: Unrecognized key",
    }),
    JSON.stringify({
      kind: "afc",
      source: "lk",
      raw_payload: tap({ deviceId: "dev-B", at: "2026-11-07T08:00:00Z" }),
      failure_reason: "event_id: Required",
    }),
  ];
  const stored = await ingest(db, envelopes);
  ["paris", "berlin", "msg", "pan", "ev2", "poison"].forEach((name, i) => (ids[name] = stored[i]!));
  await db.pool.query(
    `INSERT INTO ledger_entry (idempotency_key, kind, applied_at, origin) VALUES ('settled-elsewhere-1', 'spatial', '2026-11-10T00:00:00Z', 'import'),
       ('lk-berlin', 'spatial', '2026-11-11T00:00:00Z', 'replay')`,
  );
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("lookup", () => {
  it("finds a record by idempotency key, event id, device id, source message id and hash prefix", async () => {
    expect((await lookup(db.pool, UNSCOPED, q({ q: "lk-paris" }), null)).records.map((r) => [r.id, r.matchedOn])).toEqual([
      [ids.paris, ["idempotency_key"]],
    ]);
    expect((await lookup(db.pool, UNSCOPED, q({ q: "ev-1" }), null)).records.map((r) => r.id)).toEqual([ids.pan]);
    expect((await lookup(db.pool, UNSCOPED, q({ q: "msg-123" }), null)).records.map((r) => [r.id, r.matchedOn])).toEqual([
      [ids.msg, ["source_message_id"]],
    ]);
    const byDevice = await lookup(db.pool, UNSCOPED, q({ q: "dev-A" }), null);
    expect(byDevice.records.map((r) => r.id)).toEqual([ids.ev2, ids.pan]); // newest observation first
    const { rows } = await db.pool.query<{ key: string }>("SELECT idempotency_key AS key FROM dead_letter WHERE id = $1", [ids.poison]);
    const hash = rows[0]!.key;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await lookup(db.pool, UNSCOPED, q({ q: hash }), null)).records.map((r) => [r.id, r.matchedOn])).toEqual([
      [ids.poison, ["idempotency_key"]],
    ]);
    const prefix = await lookup(db.pool, UNSCOPED, q({ q: hash.slice(0, 10).toUpperCase() }), null);
    expect(prefix.records.map((r) => [r.id, r.matchedOn])).toEqual([[ids.poison, ["event_hash_prefix"]]]);
    // A whole hash pasted in upper case (some tools print hex that way) still finds it.
    const upper = await lookup(db.pool, UNSCOPED, q({ q: hash.toUpperCase() }), null);
    expect(upper.records.map((r) => [r.id, r.matchedOn])).toEqual([[ids.poison, ["event_hash_prefix"]]]);
    expect((await lookup(db.pool, UNSCOPED, q({ q: "nothing-like-this" }), null)).records).toEqual([]);
  });

  it("finds a spatial record by its feature id", async () => {
    expect((await lookup(db.pool, UNSCOPED, q({ q: "berlin" }), null)).records.map((r) => [r.id, r.matchedOn])).toEqual([
      [ids.berlin, ["feature_id"]],
    ]);
  });

  it("never finds a record by a prefix of a key made of a card number, and refuses a card number without unmask rights", async () => {
    const [card] = await ingest(db, [spatialEnvelope({ key: PAN, observedAt: 400, featureId: "card-keyed", geometry: square(20, 20) })]);
    for (let n = 8; n < PAN.length; n++) {
      expect((await lookup(db.pool, UNSCOPED, q({ q: PAN.slice(0, n) }), null)).records, PAN.slice(0, n)).toEqual([]);
      expect((await lookup(db.pool, UNSCOPED, q({ q: PAN.slice(0, n) }), null)).ledger).toEqual([]);
    }
    await expect(lookup(db.pool, UNSCOPED, q({ q: PAN }), null)).rejects.toMatchObject({
      code: "validation_failed",
      issues: [{ path: "q" }],
    });
    // A reader who may unmask looks it up by the real value; exact lookup of a whole key stays.
    expect((await lookup(db.pool, UNSCOPED, q({ q: PAN }), null, { unmaskRights: true })).records.map((r) => r.id)).toEqual([card]);
    await db.pool.query("DELETE FROM dead_letter WHERE id = $1", [card]);
  });

  it("narrows by time window", async () => {
    const r = await lookup(db.pool, UNSCOPED, q({ q: "dev-A", from: "2026-11-06T00:00:00Z", to: "2026-11-06T23:59:59Z" }), null);
    expect(r.records.map((x) => x.id)).toEqual([ids.ev2]);
  });

  it("finds records by place: a box, or a point and radius, with a time window", async () => {
    const box = await lookup(db.pool, UNSCOPED, q({ bbox: "2.3,48.8,2.4,48.9" }), null);
    expect(box.records.map((r) => r.id)).toEqual([ids.msg, ids.paris]);
    expect(box.records.every((r) => r.matchedOn.includes("place"))).toBe(true);
    // Each comes with where it is, for the lookup's map.
    for (const r of box.records) {
      const [lon, lat] = r.position!;
      expect(lon).toBeGreaterThanOrEqual(2.3);
      expect(lon).toBeLessThanOrEqual(2.4);
      expect(lat).toBeGreaterThanOrEqual(48.8);
      expect(lat).toBeLessThanOrEqual(48.9);
    }
    expect((await lookup(db.pool, UNSCOPED, q({ q: "ev-1" }), null)).records[0]!.position).toBeNull(); // a tap has no place
    const near = await lookup(db.pool, UNSCOPED, q({ near: "2.3505,48.8505", radiusKm: "0.5" }), null);
    expect(near.records.map((r) => r.id)).toEqual([ids.paris]); // msg is ~1.4 km away
    const wider = await lookup(db.pool, UNSCOPED, q({ near: "2.3505,48.8505", radiusKm: "2" }), null);
    expect(wider.records.map((r) => r.id)).toEqual([ids.msg, ids.paris]);
    const early = await lookup(db.pool, UNSCOPED, q({ bbox: "2.3,48.8,2.4,48.9", to: new Date((EPOCH + 150) * 1000).toISOString() }), null);
    expect(early.records.map((r) => r.id)).toEqual([ids.paris]);
    const keyAndPlace = await lookup(db.pool, UNSCOPED, q({ q: "lk-berlin", bbox: "2.3,48.8,2.4,48.9" }), null);
    expect(keyAndPlace.records).toEqual([]);
  });

  it("answers from the ledger, also for keys that never were in this DLQ", async () => {
    const elsewhere = await lookup(db.pool, UNSCOPED, q({ q: "settled-elsewhere-1" }), null);
    expect(elsewhere.records).toEqual([]);
    expect(elsewhere.ledger).toMatchObject([
      { idempotencyKey: "settled-elsewhere-1", origin: "import", appliedAt: "2026-11-10T00:00:00.000Z" },
    ]);
    const berlin = await lookup(db.pool, UNSCOPED, q({ q: "lk-berlin" }), null);
    expect(berlin.ledger.map((l) => l.idempotencyKey)).toEqual(["lk-berlin"]);
  });

  it("masks card data in reasons for readers without unmask", async () => {
    await db.pool.query(`UPDATE dead_letter SET reason = $2 WHERE id = $1`, [ids.pan, `refused card ${PAN}`]);
    const masked = await lookup(db.pool, UNSCOPED, q({ q: "ev-1" }), DEFAULT_MASK_RULES);
    expect(masked.records[0]!.reason).toBe("refused card ••••••••••••1111");
  });

  it("serves GET /api/lookup and refuses a query without key or place", async () => {
    const { GET } = await import("../../app/api/lookup/route");
    const token = await makeToken(db, (await makeUser(db, "analyst")).id);
    const get = (qs: string) =>
      GET(new Request(`http://localhost/api/lookup?${qs}`, { headers: { authorization: `Bearer ${token}` } }), {
        params: Promise.resolve({}),
      });
    const ok = await get("q=lk-paris");
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { records: unknown[] }).records).toHaveLength(1);
    const bad = await get("from=2026-01-01T00:00:00Z");
    expect(bad.status).toBe(422);
  });
});

describe("lookup after an identity override", () => {
  it("still finds a tap by the event_id and device_id it was captured with", async () => {
    const [id] = await ingest(db, [
      JSON.stringify({
        kind: "afc",
        source: "lk",
        raw_payload: tap({ eventId: "ev-Z", deviceId: "dev-Z", at: "2026-11-08T08:00:00Z", extra: { y: 1 } }),
        failure_reason: "y: Unrecognized key",
      }),
    ]);
    const { rows } = await db.pool.query<{ payload: Record<string, unknown>; version: number }>(
      "SELECT payload, version FROM dead_letter WHERE id = $1",
      [id],
    );
    const s = await makeUser(db, "supervisor");
    await applyAction(
      db.pool,
      id!,
      {
        action: "edit",
        version: rows[0]!.version,
        payload: { ...rows[0]!.payload, device_id: "dev-Y", event_id: "ev-Y" },
        reason: "gate remapped",
      },
      {
        scope: UNSCOPED,
        actor: { id: s.id, email: s.email, role: "supervisor" },
        requestId: "t",
        now: new Date(),
        canOverrideIdentity: true,
      },
    );
    for (const [value, field] of [
      ["dev-Z", "device_id"],
      ["dev-Y", "device_id"],
      ["ev-Z", "event_id"],
      ["ev-Y", "event_id"],
    ]) {
      expect(
        (await lookup(db.pool, UNSCOPED, q({ q: value }), null)).records.map((r) => [r.id, r.deviceId, r.matchedOn]),
        value,
      ).toEqual([[id, "dev-Y", [field]]]);
    }
    // …within a time window too, and not outside it
    expect(
      (await lookup(db.pool, UNSCOPED, q({ q: "dev-Z", from: "2026-11-08T00:00:00Z", to: "2026-11-09T00:00:00Z" }), null)).records,
    ).toHaveLength(1);
    expect((await lookup(db.pool, UNSCOPED, q({ q: "dev-Z", from: "2026-11-09T00:00:00Z" }), null)).records).toHaveLength(0);
  });
});

describe("reveal", () => {
  it("gives an auditor one field in clear and audits the path, never the value", async () => {
    const { POST } = await import("../../app/api/dead-letters/[id]/reveal/route");
    const post = async (role: "auditor" | "analyst", path: string) => {
      const token = await makeToken(db, (await makeUser(db, role)).id);
      return POST(
        new Request(`http://localhost/api/dead-letters/${ids.pan}/reveal`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ path }),
        }),
        { params: Promise.resolve({ id: ids.pan! }) },
      );
    };
    expect((await post("analyst", "/payload/card_pan")).status).toBe(403);
    const res = await post("auditor", "/payload/card_pan");
    expect(await res.json()).toEqual({ path: "/payload/card_pan", value: PAN });
    expect(await (await post("auditor", "/rawEnvelope/raw_payload/card_pan")).json()).toEqual({
      path: "/rawEnvelope/raw_payload/card_pan",
      value: PAN,
    });
    expect((await post("auditor", "/payload/nope")).status).toBe(404);
    // A field everyone sees in clear is not revealed (nor audited as a reveal).
    const clear = await post("auditor", "/payload/device_id");
    expect(clear.status).toBe(422);
    expect(await clear.json()).toMatchObject({ error: { issues: [{ path: "path", message: "is not a masked field" }] } });
    const { rows } = await db.pool.query(
      "SELECT after FROM audit_event WHERE action = 'dead_letter.field_revealed' AND target_id = $1 ORDER BY id",
      [ids.pan],
    );
    expect(rows.map((r) => r.after)).toEqual([{ path: "/payload/card_pan" }, { path: "/rawEnvelope/raw_payload/card_pan" }]);
    expect(JSON.stringify(rows)).not.toContain(PAN);
  });
});

describe("GET /api/dead-letters/{id}", () => {
  it("masks card data for an analyst and shows it to an auditor asking for it", async () => {
    const { GET } = await import("../../app/api/dead-letters/[id]/route");
    const get = async (role: "analyst" | "auditor", qs = "") => {
      const token = await makeToken(db, (await makeUser(db, role)).id);
      return GET(new Request(`http://localhost/api/dead-letters/${ids.pan}${qs}`, { headers: { authorization: `Bearer ${token}` } }), {
        params: Promise.resolve({ id: ids.pan! }),
      });
    };
    const masked = (await (await get("analyst")).json()) as { payload: { card_pan: string }; rawEnvelope: string; maskedPaths: string[] };
    expect(masked.payload.card_pan).toBe("••••••••••••1111");
    expect(masked.rawEnvelope).not.toContain(PAN);
    expect(masked.maskedPaths).toEqual(["/payload/card_pan", "/rawEnvelope/raw_payload/card_pan"]);
    // The body is what the OpenAPI document says (its DeadLetterDetail allows no other member).
    expect(ServedDeadLetterDetailSchema.strict().safeParse(masked).error).toBeUndefined();
    expect((await get("analyst", "?unmask=1")).status).toBe(403);
    const clearRes = await get("auditor", "?unmask=1");
    expect(clearRes.headers.get("cache-control")).toBe("no-store"); // card data in clear: no cache keeps it
    const clear = (await clearRes.json()) as { payload: { card_pan: string } };
    expect(clear.payload.card_pan).toBe(PAN);
  });

  it("refuses an unmasked read a page on another site started with the auditor's cookie (it would be audited in their name)", async () => {
    const { GET } = await import("../../app/api/dead-letters/[id]/route");
    const auditor = await makeUser(db, "auditor");
    const { cookie } = await signIn(auditor.email);
    const get = (site: string) =>
      GET(new Request(`http://localhost/api/dead-letters/${ids.pan}?unmask=1`, { headers: { cookie, "sec-fetch-site": site } }), {
        params: Promise.resolve({ id: ids.pan! }),
      });
    const cross = await get("cross-site");
    expect(cross.status).toBe(403);
    expect(await cross.json()).toMatchObject({ error: { code: "forbidden", message: expect.stringContaining("another site") } });
    // A page on another port of this host, or on a sibling subdomain, is "same-site": not Redrive's own page either.
    expect((await get("same-site")).status).toBe(403);
    expect((await get("same-origin")).status).toBe(200);
    expect((await get("none")).status).toBe(200); // typed or bookmarked
  });

  it("refuses an export another site, port or subdomain started with the auditor's cookie, masked or not; tokens unaffected", async () => {
    const { GET } = await import("../../app/api/export/route");
    const auditor = await makeUser(db, "auditor");
    const { cookie } = await signIn(auditor.email);
    const exports = async () =>
      (await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_event WHERE action = 'dead_letters.exported'")).rows[0]!.n;
    const get = (site: string | null, query: string) =>
      GET(
        new Request(`http://localhost/api/export?format=ndjson${query}`, {
          headers: { cookie, ...(site === null ? {} : { "sec-fetch-site": site }) },
        }),
        { params: Promise.resolve({}) },
      );
    const before = await exports();
    for (const site of ["same-site", "cross-site"]) {
      for (const query of ["", "&unmask=1"]) {
        const res = await get(site, query);
        expect(res.status).toBe(403);
        expect(await res.json()).toMatchObject({ error: { code: "forbidden", message: expect.stringContaining("Redrive's own pages") } });
      }
    }
    expect(await exports()).toBe(before); // nothing audited in the auditor's name
    for (const site of ["same-origin", "none", null]) {
      const res = await get(site, "&unmask=1");
      expect(res.status).toBe(200);
      await res.text();
    }
    const token = await makeToken(db, auditor.id);
    const byToken = await GET(new Request("http://localhost/api/export?format=ndjson", { headers: { authorization: `Bearer ${token}` } }), {
      params: Promise.resolve({}),
    });
    expect(byToken.status).toBe(200);
    await byToken.text();
  });

  it("never writes masked placeholders back: values left as shown are kept, a changed placeholder is refused by path; answers are masked", async () => {
    const { POST } = await import("../../app/api/dead-letters/[id]/actions/route");
    const token = await makeToken(db, (await makeUser(db, "analyst")).id);
    const { rows } = await db.pool.query<{ version: number; payload: Record<string, unknown> }>(
      "SELECT version, payload FROM dead_letter WHERE id = $1",
      [ids.pan],
    );
    const post = (body: unknown) =>
      POST(
        new Request(`http://localhost/api/dead-letters/${ids.pan}/actions`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        { params: Promise.resolve({ id: ids.pan! }) },
      );
    const version = rows[0]!.version;
    const changed = await post({ action: "edit", version, payload: { ...rows[0]!.payload, card_pan: "••••••••••••1112", line: "M7" } });
    expect(changed.status).toBe(422);
    expect(((await changed.json()) as { error: { issues: { path: string }[] } }).error.issues).toEqual([
      expect.objectContaining({ path: "payload.card_pan" }),
    ]);
    // The masked view saved as shown, with another field changed: the stored card number stays the real one.
    const asShown = await post({ action: "edit", version, payload: { ...rows[0]!.payload, card_pan: "••••••••••••1111", line: "M7" } });
    expect(asShown.status, JSON.stringify(await asShown.clone().json())).toBe(200);
    expect(JSON.stringify(await asShown.json())).not.toContain(PAN);
    const after = await db.pool.query<{ version: number; payload: Record<string, unknown> }>(
      "SELECT version, payload FROM dead_letter WHERE id = $1",
      [ids.pan],
    );
    expect(after.rows[0]!.payload).toMatchObject({ card_pan: PAN, line: "M7" });
    const note = await post({ action: "quarantine", version: after.rows[0]!.version, reason: "card data" });
    expect(note.status).toBe(200);
    expect(JSON.stringify(await note.json())).not.toContain(PAN);
    await db.pool.query("UPDATE dead_letter SET status = 'pending' WHERE id = $1", [ids.pan]);
  });
});

describe("quarantine", () => {
  it("groups quarantined records by reason with a zero-filled 14-day trend", async () => {
    const groups = await quarantineGroups(db.pool, UNSCOPED, new Date("2026-11-10T12:00:00Z"));
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ kind: "afc", count: 1 });
    expect(groups[0]!.trend).toHaveLength(14);
    expect(groups[0]!.trend.find((d) => d.day === "2026-11-07")?.count).toBe(1);
  });

  it("releases to triage and purges, skipping what is not quarantined; the purge keeps a masked copy in the audit", async () => {
    await db.pool.query("UPDATE dead_letter SET status = 'quarantined' WHERE id = $1", [ids.pan]);
    const released = await releaseQuarantined(db.pool, { ids: [ids.poison!, ids.paris!], reason: "producer fixed" }, ctx());
    expect(released).toEqual({ released: 1, skipped: 1 });
    expect((await db.pool.query("SELECT status FROM dead_letter WHERE id = $1", [ids.poison])).rows[0].status).toBe("pending");

    // A count that is not the one confirmed (something was quarantined or released since) changes nothing.
    await expect(
      purgeQuarantined(db.pool, { filter: { kind: ["afc"] }, reason: "x", expectedCount: 2 }, { ...ctx(), rules: DEFAULT_MASK_RULES }),
    ).rejects.toMatchObject({ code: "conflict", issues: [{ path: "expectedCount", message: "is 1 now" }] });
    const purged = await purgeQuarantined(
      db.pool,
      { filter: { kind: ["afc"] }, reason: "card data must not be kept", expectedCount: 1 },
      { ...ctx(), rules: DEFAULT_MASK_RULES },
    );
    expect(purged).toEqual({ purged: 1, skipped: 0 });
    const row = (await db.pool.query("SELECT status, payload, raw_envelope, idempotency_key FROM dead_letter WHERE id = $1", [ids.pan]))
      .rows[0];
    expect(row).toMatchObject({ status: "purged", payload: null, raw_envelope: null });
    expect(row.idempotency_key).toMatch(/^[0-9a-f]{64}$/);
    const audit = (
      await db.pool.query("SELECT before, reason FROM audit_event WHERE action = 'dead_letter.purged' AND target_id = $1", [ids.pan])
    ).rows[0];
    expect(audit.reason).toBe("card data must not be kept");
    expect(audit.before.payload.card_pan).toBe("••••••••••••1111");
    expect(audit.before.rawEnvelope).toContain('"card_pan":"••••••••••••1111"');
    expect(JSON.stringify(audit)).not.toContain(PAN);
  });

  it("refuses an empty filter without the confirmed count (it would act on every quarantined record)", () => {
    expect(QuarantineBodySchema.safeParse({ filter: {}, reason: "x" }).error?.issues).toEqual([
      expect.objectContaining({ path: ["filter"], message: expect.stringContaining("send expectedCount") }),
    ]);
    expect(QuarantineBodySchema.safeParse({ filter: {}, reason: "x", expectedCount: 3 }).success).toBe(true);
    expect(QuarantineBodySchema.safeParse({ filter: { kind: ["afc"] }, reason: "x" }).success).toBe(true);
  });

  it("only lets supervisors purge over HTTP", async () => {
    const { POST } = await import("../../app/api/quarantine/purge/route");
    const token = await makeToken(db, (await makeUser(db, "analyst")).id);
    const res = await POST(
      new Request("http://localhost/api/quarantine/purge", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ ids: ["1"], reason: "x" }),
      }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(403);
  });
});
