import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { closeDb, type Db } from "../../lib/db/client";
import { sharedNormalizePool } from "../../lib/dead-letters/ingest/normalize-pool";
import { auditedExport } from "../../lib/forensics/export/audited";
import type { ExportFormat } from "../../lib/forensics/forensics-schemas";
import { DEFAULT_MASK_RULES } from "../../lib/masking/rules";
import { afcRecord, ingest, spatialEnvelope } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// GET /api/export runs its stream on an ingest thread (lib/api/off-thread-reads.ts): the bytes are those of the
// stream run here, the export is audited once however it ends, and a client that goes away ends the cursor there.
// That it keeps the request thread free is heavy-input.test.ts's (a 1e6-vertex record in each format).

setTestAuthEnv();

let db: Db;
const PAN = "4111111111111111";
const tokens: Record<"analyst" | "auditor", string> = { analyst: "", auditor: "" };

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "user"] });
  await ingest(db, [
    spatialEnvelope({ key: "ot-1", observedAt: 10, featureId: "f1" }),
    spatialEnvelope({
      key: "ot-2",
      observedAt: 20,
      featureId: "f2",
      geometry: {
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
      },
    }),
    `{"kind": "afc", "source": "ex", "raw_payload": {"event_id": "e-1", "device_id": "d-1", "fare_amount_cents": 275.0, "tap_timestamp": "2026-11-02T00:00:00Z", "card_pan": "${PAN}"}, "failure_reason": "card_pan: Unrecognized key", "retry_count": 1}`,
    afcRecord({ eventId: "e-2", deviceId: "d-2", at: 30 }),
  ]);
  for (const role of ["analyst", "auditor"] as const) tokens[role] = await makeToken(db, (await makeUser(db, role)).id);
  sharedNormalizePool()?.warm();
});

afterAll(async () => {
  await sharedNormalizePool()?.close();
  await db.pool.end();
  await closeDb();
});

async function get(role: "analyst" | "auditor", qs: string): Promise<Response> {
  const { GET } = await import("../../app/api/export/route");
  return GET(new Request(`http://localhost/api/export?${qs}`, { headers: { authorization: `Bearer ${tokens[role]}` } }), {
    params: Promise.resolve({}),
  });
}

async function exports(): Promise<{ count: number; completed: boolean; error?: string }[]> {
  const { rows } = await db.pool.query<{ after: { count: number; completed: boolean; error?: string } }>(
    "SELECT after FROM audit_event WHERE action = 'dead_letters.exported' ORDER BY id",
  );
  return rows.map((r) => ({ count: r.after.count, completed: r.after.completed, ...(r.after.error ? { error: r.after.error } : {}) }));
}

/** Connections still holding an export's cursor or transaction (the thread's, or this one's). */
async function openCursors(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
       AND (state = 'idle in transaction' OR query LIKE '%redrive_export%')`,
  );
  return rows[0]!.n;
}

async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe("GET /api/export on an ingest thread", () => {
  it("runs on a thread here (the threads are on)", () => {
    expect(sharedNormalizePool()).not.toBeNull();
  });

  it.each([
    ["ndjson", false],
    ["ndjson", true],
    ["csv", false],
    ["csv", true],
    ["geojson", false],
    ["geojson", true],
  ] as [ExportFormat, boolean][])("answers %s (masked: %s) byte for byte as the stream run in this thread", async (format, masked) => {
    const before = (await exports()).length;
    const res = await get(
      masked ? "analyst" : "auditor",
      `format=${format}${masked ? "" : "&unmask=1"}${format === "csv" ? "&excel=1" : ""}`,
    );
    expect(res.status).toBe(200);
    const routed = new Uint8Array(await res.arrayBuffer());
    const here = auditedExport(
      db.pool,
      { scope: UNSCOPED, format, filter: {}, mask: masked ? DEFAULT_MASK_RULES : null, ...(format === "csv" ? { excel: true } : {}) },
      { actor: SYSTEM_ACTOR, requestId: "t", now: new Date() },
      () => {},
    );
    const inThread = new Uint8Array(await new Response(here.stream).arrayBuffer());
    await here.audited;
    expect(routed.length).toBeGreaterThan(100);
    expect(Buffer.from(routed).equals(Buffer.from(inThread))).toBe(true);
    // the card number is an AFC record's (GeoJSON holds spatial records only)
    expect(Buffer.from(routed).includes(PAN)).toBe(!masked && format !== "geojson");
    // one event for the route's export (audited before its last chunk was read), one for this thread's
    const events = (await exports()).slice(before);
    expect(events).toHaveLength(2);
    expect(events[0]).toEqual({ count: here.stats.records, completed: true });
  });

  it("audits once, as not completed, when the client goes away mid-export, and ends the cursor on the thread", async () => {
    const before = (await exports()).length;
    const res = await get("analyst", "format=csv");
    const reader = res.body!.getReader();
    const first = await reader.read(); // the header
    expect(first.done).toBe(false);
    await reader.cancel();
    expect(await eventually(async () => (await exports()).length > before)).toBe(true);
    expect(await eventually(async () => (await openCursors()) === 0)).toBe(true);
    expect((await exports()).slice(before)).toEqual([{ count: expect.any(Number) as number, completed: false, error: "export cancelled" }]);
  });

  it("audits once when the client goes away before reading anything", async () => {
    const before = (await exports()).length;
    const res = await get("analyst", "format=ndjson");
    await res.body!.cancel();
    expect(await eventually(async () => (await exports()).length > before)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect((await exports()).slice(before)).toEqual([{ count: 0, completed: false, error: "export cancelled" }]);
    expect(await eventually(async () => (await openCursors()) === 0)).toBe(true);
  });
});
