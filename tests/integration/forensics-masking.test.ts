import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import type { Role } from "../../lib/auth/permissions";
import { getDeadLetter } from "../../lib/dead-letters/query/detail";
import { ListQuerySchema } from "../../lib/dead-letters/filters";
import { listDeadLetters } from "../../lib/dead-letters/query/list";
import { csvLine } from "../../lib/forensics/export/format";
import { lookup } from "../../lib/forensics/lookup";
import { LookupQuerySchema } from "../../lib/forensics/forensics-schemas";
import { maskDetail } from "../../lib/dead-letters/query/mask-detail";
import { maskListPage } from "../../lib/dead-letters/query/mask-list";
import { maskRules } from "../../lib/masking/rules";
import { ingest, spatialEnvelope } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Card numbers in free-text failure reasons ("card_number: 4111111111111111 is not allowed"): every route that
// shows a reason (list rows, facets, detail and its history, timeline, lookup, quarantine groups, overview,
// exports) masks it on the server for every reader, and an auditor who asks for clear data (unmask=1, audited)
// gets it where clear data is offered.

setTestAuthEnv();

let db: Db;
const PAN = "4111111111111111";
/** the PAN in any spelling a producer might use: plain, spaced, dashed */
const ANY_PAN = /4111[ -]?1111[ -]?1111[ -]?1111/;
const MASKED = "••••••••••••1111";
const ids: Record<string, string> = {};
const tokens: Partial<Record<Role, string>> = {};

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function call(
  role: Role,
  handler: Handler,
  path: string,
  params: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  tokens[role] ??= await makeToken(db, (await makeUser(db, role)).id);
  const res = await handler(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${tokens[role]}` } }), {
    params: Promise.resolve(params),
  });
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  db = await testDb();
  const stored = await ingest(db, [
    // a producer's reason quoting the field it refused
    JSON.stringify({
      kind: "afc",
      source: "mask-test",
      raw_payload: { event_id: "ev-m1", device_id: "dev-M", fare_amount_cents: 250, tap_timestamp: "2026-11-05T08:00:00Z" },
      failure_reason: `card_number: ${PAN} is not allowed`,
    }),
    // poison (no event_id), so quarantined; digits glued to a word survive reason grouping, so the group (what
    // quarantine and facets show) carries the PAN too
    JSON.stringify({
      kind: "afc",
      source: "mask-test",
      raw_payload: { device_id: "dev-M", fare_amount_cents: 250, tap_timestamp: "2026-11-05T09:00:00Z" },
      failure_reason: `rejected pan${PAN} (event_id missing)`,
    }),
    // the PAN spaced, as printed on the card
    JSON.stringify({
      ...JSON.parse(spatialEnvelope({ key: "mask-spatial", observedAt: 100, featureId: "f1" })),
      dead_letter_reason: "owner check failed for card 4111 1111 1111 1111",
    }),
  ]);
  ids.reason = stored[0]!;
  ids.poison = stored[1]!;
  ids.spaced = stored[2]!;
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("free-text reasons are masked on the server", () => {
  it("stores reasons as received (masking is on the way out, not on the way in)", async () => {
    const { rows } = await db.pool.query<{ reason: string; reason_group: string }>(
      "SELECT reason, reason_group FROM dead_letter ORDER BY id",
    );
    expect(rows[0]!.reason).toBe(`card_number: ${PAN} is not allowed`);
    expect(rows[1]!.reason_group).toContain(PAN);
  });

  it("masks list rows, facets, quarantine groups, the overview and the lookup, for analysts and auditors alike", async () => {
    const list = (await import("../../app/api/dead-letters/route")).GET as Handler;
    const facets = (await import("../../app/api/dead-letters/facets/route")).GET as Handler;
    const groups = (await import("../../app/api/quarantine/groups/route")).GET as Handler;
    const overview = (await import("../../app/api/overview/route")).GET as Handler;
    const lookup = (await import("../../app/api/lookup/route")).GET as Handler;
    for (const role of ["analyst", "auditor"] as const) {
      const rows = await call(role, list, "/api/dead-letters");
      expect(rows.status).toBe(200);
      const items = (JSON.parse(rows.text) as { items: { id: string; reason: string; reasonGroup: string }[] }).items;
      expect(items.find((i) => i.id === ids.reason)?.reason).toBe(`card_number: ${MASKED} is not allowed`);
      expect(items.find((i) => i.id === ids.poison)?.reasonGroup).toBe(`rejected pan${MASKED} (event_id missing)`);
      expect(items.find((i) => i.id === ids.spaced)?.reason).toBe(`owner check failed for card ${MASKED}`);
      for (const [name, res] of [
        ["list", rows],
        ["facets", await call(role, facets, "/api/dead-letters/facets")],
        ["quarantine groups", await call(role, groups, "/api/quarantine/groups")],
        ["overview", await call(role, overview, "/api/overview")],
        ["lookup", await call(role, lookup, "/api/lookup?q=dev-M")],
      ] as const) {
        expect(res.status, name).toBe(200);
        expect(res.text, `${name} for ${role}`).not.toMatch(ANY_PAN);
        expect(res.text, `${name} for ${role}`).toContain(MASKED);
      }
    }
  });

  it("masks the detail, its failure history and the timeline for an analyst; an auditor asking for clear data gets the reason", async () => {
    const detail = (await import("../../app/api/dead-letters/[id]/route")).GET as Handler;
    const timeline = (await import("../../app/api/dead-letters/[id]/timeline/route")).GET as Handler;
    for (const [name, handler, path] of [
      ["detail", detail, ""],
      ["timeline", timeline, "/timeline"],
    ] as const) {
      const masked = await call("analyst", handler, `/api/dead-letters/${ids.reason}${path}`, { id: ids.reason! });
      expect(masked.status, name).toBe(200);
      expect(masked.text, name).not.toMatch(ANY_PAN);
      expect(masked.text, name).toContain(`card_number: ${MASKED} is not allowed`);
      expect((await call("analyst", handler, `/api/dead-letters/${ids.reason}${path}?unmask=1`, { id: ids.reason! })).status, name).toBe(
        403,
      );
      const clear = await call("auditor", handler, `/api/dead-letters/${ids.reason}${path}?unmask=1`, { id: ids.reason! });
      expect(clear.status, name).toBe(200);
      expect(clear.text, name).toContain(`card_number: ${PAN} is not allowed`);
    }
    const d = JSON.parse((await call("analyst", detail, `/api/dead-letters/${ids.poison}`, { id: ids.poison! })).text) as {
      reasonGroup: string;
      failures: { reason: string }[];
    };
    expect(d.reasonGroup).toBe(`rejected pan${MASKED} (event_id missing)`);
    expect(d.failures.map((f) => f.reason)).toEqual([`rejected pan${MASKED} (event_id missing)`]);
  });

  it("masks reasons in every export format for an analyst, and exports them in clear for an auditor who asks", async () => {
    const exp = (await import("../../app/api/export/route")).GET as Handler;
    for (const format of ["ndjson", "csv", "geojson"]) {
      const masked = await call("analyst", exp, `/api/export?format=${format}`);
      expect(masked.status, format).toBe(200);
      expect(masked.text, format).not.toMatch(ANY_PAN);
      expect(masked.text, format).toContain(MASKED);
    }
    const csv = (await call("analyst", exp, "/api/export?format=csv")).text;
    expect(csv).toContain(`card_number: ${MASKED} is not allowed`);
    expect(csv).toContain(`rejected pan${MASKED} (event_id missing)`); // reason_group column too
    const clear = await call("auditor", exp, "/api/export?format=csv&unmask=1");
    expect(clear.text).toContain(`card_number: ${PAN} is not allowed`);
    expect(clear.text).toContain("owner check failed for card 4111 1111 1111 1111");
  });
});

describe("identifier copies under custom key globs", () => {
  it("masks deviceId (and a tap's entity key) in the detail, list, lookup and CSV when REDRIVE_MASK_KEYS names device_id", async () => {
    const rules = maskRules(["device*"]);
    const [id] = await ingest(db, [
      JSON.stringify({
        kind: "afc",
        source: "mask-ids",
        raw_payload: { event_id: "mi-1", device_id: "gate-secret-9", fare_amount_cents: 250, tap_timestamp: "2026-11-05T08:00:00Z", z: 1 },
        failure_reason: "z: Unrecognized key",
      }),
    ]);
    const detail = maskDetail((await getDeadLetter(db.pool, id!))!, rules);
    expect(detail).toMatchObject({ deviceId: "•••", entityKey: "•••", eventId: "mi-1" });
    expect(JSON.stringify(detail)).not.toContain("gate-secret-9");
    const page = maskListPage(await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ source: "mask-ids" })), rules);
    expect(page.items.map((r) => [r.deviceId, r.eventId])).toEqual([["•••", "mi-1"]]);
    const found = await lookup(db.pool, UNSCOPED, LookupQuerySchema.parse({ q: "gate-secret-9" }), rules);
    expect(found.records.map((r) => r.deviceId)).toEqual(["•••"]);
    // The ledger's copy of the entity (a settled tap's device), found by the record's key.
    await db.pool.query(
      `INSERT INTO ledger_entry (idempotency_key, kind, entity_key, dead_letter_id, origin)
       SELECT idempotency_key, 'afc', entity_key, id, 'import' FROM dead_letter WHERE id = $1`,
      [id],
    );
    const key = (await db.pool.query<{ k: string }>(`SELECT idempotency_key AS k FROM dead_letter WHERE id = $1`, [id])).rows[0]!.k;
    const settled = await lookup(db.pool, UNSCOPED, LookupQuerySchema.parse({ q: key }), rules);
    expect(settled.ledger.map((l) => l.entityKey)).toEqual(["•••"]);
    expect(JSON.stringify(settled)).not.toContain("gate-secret-9");
    const { rows } = await db.pool.query(
      `SELECT d.id::text AS id, d.kind, d.source, d.idempotency_key, d.entity_key, d.event_id, d.device_id, d.source_message_id,
      d.observed_at, d.first_seen_at, d.status, d.failure_class, d.class_reason, d.reason_group, d.reason, d.first_failure_reason, d.replay_count,
      d.failure_count, NULL AS outcome, d.payload::text AS payload FROM dead_letter d WHERE d.id = $1`,
      [id],
    );
    expect(csvLine(rows[0], rules)).not.toContain("gate-secret-9");
  });
});
