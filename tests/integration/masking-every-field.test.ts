import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import type { Role } from "../../lib/auth/permissions";
import { luhnValid } from "../../lib/masking/mask";
import { ingest } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Card numbers planted in every field a producer controls — identity fields, keys, ids, property names, a
// coordinate that ends up in the geometry's reason, a broker message id — and every read path's output scanned
// for any of them in clear: the JSON answers (list, facets, map points, detail, timeline, lookup, quarantine
// groups, overview, audit log), the three export formats and the Prometheus metrics, for an analyst and for an
// auditor who did not ask for clear data. An auditor still finds the records by the real values.

setTestAuthEnv();

/** A Luhn-valid 16-digit number per field, so a leak names the field it came from. */
function pan(n: number): string {
  const body = `4${String(n).padStart(14, "0")}`;
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
  throw new Error("unreachable");
}

const PLANTED = {
  afcEventId: pan(1),
  afcDeviceId: pan(2),
  afcSource: pan(3),
  afcPayloadKey: pan(4),
  afcOtherField: pan(5),
  spatialKey: pan(6),
  featureId: pan(7),
  sourceMessageId: pan(8),
  propertyKey: pan(9),
  spatialSource: pan(10),
  coordinate: pan(11),
  reason: pan(12),
};

const MASKED_TAIL = /•{12}\d{4}/;

let db: Db;
const tokens: Partial<Record<Role, string>> = {};
const ids: string[] = [];

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function call(role: Role, handler: Handler, path: string, params: Record<string, string> = {}) {
  tokens[role] ??= await makeToken(db, (await makeUser(db, role)).id);
  const res = await handler(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${tokens[role]}` } }), {
    params: Promise.resolve(params),
  });
  return { status: res.status, text: await res.text() };
}

/** The planted values found in clear in `text`, by field. */
function leaks(text: string): string[] {
  return Object.entries(PLANTED)
    .filter(([, v]) => text.includes(v))
    .map(([k]) => k);
}

beforeAll(async () => {
  db = await testDb();
  ids.push(
    ...(await ingest(db, [
      JSON.stringify({
        kind: "afc",
        source: PLANTED.afcSource,
        raw_payload: {
          event_id: PLANTED.afcEventId,
          device_id: PLANTED.afcDeviceId,
          fare_amount_cents: 250,
          tap_timestamp: "2026-11-05T08:00:00Z",
          note: `ref ${PLANTED.afcOtherField}`,
          [PLANTED.afcPayloadKey]: "keyed by card",
        },
        failure_reason: `refused ${PLANTED.reason}`,
      }),
      JSON.stringify({
        kind: "spatial",
        source: PLANTED.spatialSource,
        idempotency_key: PLANTED.spatialKey,
        source_message_id: PLANTED.sourceMessageId,
        observed_at: "2026-11-05T08:00:00Z",
        feature: {
          type: "Feature",
          id: PLANTED.featureId,
          properties: { [PLANTED.propertyKey]: 1 },
          geometry: {
            type: "Polygon",
            coordinates: [
              [
                [0, 0],
                [Number(PLANTED.coordinate), 2],
                [2, 0],
                [0, 2],
                [0, 0],
              ],
            ],
          },
        },
        dead_letter_reason: "geometry check failed",
      }),
    ])),
  );
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("a card number in any producer field leaves masked", () => {
  it("is stored as received", async () => {
    const { rows } = await db.pool.query<{ t: string }>("SELECT row_to_json(d)::text AS t FROM dead_letter d ORDER BY id");
    const stored = rows.map((r) => r.t).join("\n");
    for (const field of [
      "afcEventId",
      "afcDeviceId",
      "afcSource",
      "spatialKey",
      "featureId",
      "sourceMessageId",
      "spatialSource",
    ] as const) {
      expect(stored, field).toContain(PLANTED[field]);
    }
  });

  it("in every JSON answer and page of data, for an analyst and for an auditor who did not ask for clear data", async () => {
    const route = async (p: string) => (await import(`../../app/api/${p}/route`)) as { GET: Handler };
    const [afc, spatial] = ids as [string, string];
    const paths: [string, Handler, string, Record<string, string>?][] = [
      ["list", (await route("dead-letters")).GET, "/api/dead-letters"],
      ["list (spatial)", (await route("dead-letters")).GET, "/api/dead-letters?kind=spatial"],
      ["facets", (await route("dead-letters/facets")).GET, "/api/dead-letters/facets"],
      ["map points", (await route("dead-letters/map-points")).GET, "/api/dead-letters/map-points"],
      ["detail afc", (await route("dead-letters/[id]")).GET, `/api/dead-letters/${afc}`, { id: afc }],
      ["detail spatial", (await route("dead-letters/[id]")).GET, `/api/dead-letters/${spatial}`, { id: spatial }],
      ["timeline afc", (await route("dead-letters/[id]/timeline")).GET, `/api/dead-letters/${afc}/timeline`, { id: afc }],
      ["timeline spatial", (await route("dead-letters/[id]/timeline")).GET, `/api/dead-letters/${spatial}/timeline`, { id: spatial }],
      ["lookup by id", (await route("lookup")).GET, `/api/lookup?q=${spatial}`],
      ["lookup by id (afc)", (await route("lookup")).GET, `/api/lookup?q=${afc}`],
      ["lookup by place", (await route("lookup")).GET, "/api/lookup?bbox=-1,-1,3,3"],
      ["quarantine groups", (await route("quarantine/groups")).GET, "/api/quarantine/groups"],
      ["overview", (await route("overview")).GET, "/api/overview"],
      ["audit log", (await route("audit")).GET, "/api/audit"],
      ["export ndjson", (await route("export")).GET, "/api/export?format=ndjson"],
      ["export csv", (await route("export")).GET, "/api/export?format=csv"],
      ["export geojson", (await route("export")).GET, "/api/export?format=geojson"],
      ["metrics", (await route("metrics")).GET, "/api/metrics"],
    ];
    for (const role of ["analyst", "auditor"] as const) {
      for (const [name, handler, path, params] of paths) {
        if (name === "audit log" && role === "analyst") continue; // auditors' page
        const res = await call(role, handler, path, params);
        expect(res.status, `${name} (${role}): ${res.text.slice(0, 300)}`).toBe(200);
        expect(leaks(res.text), `${name} for ${role}`).toEqual([]);
      }
    }
    // The answers did carry the fields, masked.
    const detail = await call("analyst", (await route("dead-letters/[id]")).GET, `/api/dead-letters/${ids[1]}`, { id: ids[1]! });
    expect(detail.text).toMatch(MASKED_TAIL);
  });

  it("an auditor finds the records by the real values, and sees them in clear when asking for it", async () => {
    const lookup = (await import("../../app/api/lookup/route")).GET as Handler;
    for (const q of [PLANTED.afcEventId, PLANTED.afcDeviceId, PLANTED.spatialKey, PLANTED.sourceMessageId]) {
      const found = await call("auditor", lookup, `/api/lookup?q=${q}`);
      expect(found.status).toBe(200);
      const records = (JSON.parse(found.text) as { records: { id: string }[] }).records;
      expect(records.length, q).toBe(1);
      const clear = await call("auditor", lookup, `/api/lookup?q=${q}&unmask=1`);
      expect(clear.text, q).toContain(q);
    }
  });
});

describe("log lines", () => {
  it("a console line with a card number is written masked", async () => {
    const { maskConsole } = await import("../../lib/ops/masked-logs");
    const { maskRules } = await import("../../lib/masking/rules");
    const written: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => written.push(args.join(" "));
    try {
      maskConsole(maskRules(), ["warn"]);
      console.warn("[source x] refused %s:", PLANTED.reason, new Error(`bad ${PLANTED.afcEventId}`));
    } finally {
      console.warn = original;
    }
    expect(written).toHaveLength(1);
    expect(leaks(written[0]!)).toEqual([]);
    expect(written[0]).toMatch(MASKED_TAIL);
  });
});
