import { readdir, readFile } from "node:fs/promises";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyAction } from "../../lib/dead-letters/triage/apply-action";
import { closeDb, type Db } from "../../lib/db/client";
import { MIGRATIONS_DIR } from "../../lib/db/migration-files";
import { getDeadLetter } from "../../lib/dead-letters/query/detail";
import { matchingExtent } from "../../lib/dead-letters/query/extent";
import { countMatching, facetCounts } from "../../lib/dead-letters/query/facets";
import { ListQuerySchema } from "../../lib/dead-letters/filters";
import { listDeadLetters } from "../../lib/dead-letters/query/list";
import { mapPoints } from "../../lib/dead-letters/query/map-points";
import { lookup } from "../../lib/forensics/lookup";
import { LookupQuerySchema } from "../../lib/forensics/forensics-schemas";
import { EPOCH, ingest, spatialEnvelope } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { utcMicrosOfDate } from "../../lib/time/instant";

// A geometry across the antimeridian, through the real pipeline: its box is stored unwrapped (178..182), so the
// list, counts, facets, map and lookup find it from either side of ±180° and never from the other side of the
// world (the box used to be stored as -178..178 and matched every viewport at its latitudes).

setTestAuthEnv();

let db: Db;
const ids: Record<string, string> = {};
const ring = (w: number, s: number, e: number, n: number) => ({
  type: "Polygon",
  coordinates: [
    [
      [w, s],
      [e, s],
      [e, n],
      [w, n],
      [w, s],
    ],
  ],
});
const FIJI = ring(178, -17, -178, -16); // 178 → -178: 4° wide across 180
const EASTERLY = ring(179, -13, -175, -12); // 179 → -175: its centre, 182 unwrapped, is -178 on the map

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "failure_attempt", "user"] });
  const stored = await ingest(db, [
    spatialEnvelope({ key: "am-fiji", observedAt: 100, featureId: "fiji", geometry: FIJI }),
    spatialEnvelope({ key: "am-easterly", observedAt: 200, featureId: "easterly", geometry: EASTERLY }),
    spatialEnvelope({ key: "am-paris", observedAt: 300, featureId: "paris", geometry: ring(2.3, 48.8, 2.4, 48.9) }),
    spatialEnvelope({ key: "am-edit", observedAt: 400, featureId: "edit", geometry: ring(5, -17, 6, -16) }),
  ]);
  ["fiji", "easterly", "paris", "edit"].forEach((name, i) => (ids[name] = stored[i]!));
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const storedBox = async (id: string) =>
  (await db.pool.query<{ bbox: string }>("SELECT bbox::text AS bbox FROM dead_letter WHERE id = $1", [id])).rows[0]?.bbox;
const list = async (bbox: string) =>
  (await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ bbox, limit: 50 }))).items.map((i) => i.id);
const byPlace = async (raw: Record<string, string>) =>
  (await lookup(db.pool, UNSCOPED, LookupQuerySchema.parse(raw), null)).records.map((r) => r.id);

// Latitudes -20..-10 hold Fiji and the easterly box; each view below names which of the two it must find.
const VIEWS: [string, string][] = [
  ["172,-20,179,-10", "west of 180"],
  ["-179,-20,-172,-10", "east of -180"],
  ["175,-20,185,-10", "across ±180"],
];

describe("a geometry across the antimeridian", () => {
  it("is stored with its box unwrapped past 180, not as a band around the world", async () => {
    expect(await storedBox(ids.fiji!)).toBe("(182,-16),(178,-17)");
    expect(await storedBox(ids.easterly!)).toBe("(185,-12),(179,-13)");
    expect(await storedBox(ids.paris!)).toBe("(2.4,48.9),(2.3,48.8)");
  });

  it.each(VIEWS)("is listed, counted and faceted in the view %s (%s)", async (bbox) => {
    expect((await list(bbox)).sort()).toEqual([ids.fiji!, ids.easterly!].sort());
    const filter = ListQuerySchema.parse({ bbox });
    expect(await countMatching(db.pool, UNSCOPED, { bbox: filter.bbox })).toBe(2);
    expect(await countMatching(db.pool, UNSCOPED, { bbox: filter.bbox, kind: ["spatial"], status: ["pending"] })).toBe(2);
    expect(await countMatching(db.pool, UNSCOPED, { bbox: filter.bbox, kind: ["afc"] })).toBe(0);
    expect((await facetCounts(db.pool, UNSCOPED, { bbox: filter.bbox })).total).toBe(2);
  });

  it("gives the list map an extent a few degrees wide across ±180, not the whole world", async () => {
    const [near] = await ingest(db, [
      spatialEnvelope({ key: "am-extent", observedAt: 150, featureId: "extent", geometry: ring(-179.9, -17, -179.8, -16) }),
    ]);
    const window = { from: utcMicrosOfDate(new Date((EPOCH + 90) * 1000)), to: utcMicrosOfDate(new Date((EPOCH + 160) * 1000)) }; // Fiji (178..182) and it
    expect(await matchingExtent(db.pool, UNSCOPED, window)).toEqual({ bbox: [178, -17, 182, -16], count: 2 });
    // Either side of 0°, the plain extent is the narrower one.
    expect(await matchingExtent(db.pool, UNSCOPED, { from: utcMicrosOfDate(new Date((EPOCH + 290) * 1000)) })).toEqual({
      bbox: [2.3, -17, 6, 48.9],
      count: 2,
    });
    await db.pool.query("DELETE FROM dead_letter WHERE id = $1", [near]);
  });

  it("is not in a view on the other side of the world, nor in one at other latitudes", async () => {
    expect(await list("0,-20,10,-10")).toEqual([ids.edit!]);
    expect(await list("172,-15,179,-14")).toEqual([]);
    expect(await countMatching(db.pool, UNSCOPED, { bbox: [0, -20, 10, -10] })).toBe(1);
  });

  it("is one point on the map, at its centre wrapped back into [-180, 180]", async () => {
    const points = await mapPoints(db.pool, UNSCOPED, { bbox: [170, -20, 190, -10] }, 5);
    const at = Object.fromEntries(points.features.map((f) => [f.properties.id, f.geometry.coordinates]));
    expect(points.features).toHaveLength(2);
    expect(at[ids.fiji!]).toEqual([180, -16.5]);
    expect(at[ids.easterly!]).toEqual([-178, -12.5]);
    // The whole world's map (one box, -180..180) lists it once, not once per side.
    const world = await mapPoints(db.pool, UNSCOPED, {}, 1);
    expect(world.features.filter((f) => f.properties.id === ids.fiji)).toHaveLength(1);
  });

  it.each(VIEWS)("is found by a lookup in the box %s (%s)", async (bbox) => {
    expect(await byPlace({ bbox })).toContain(ids.fiji);
  });

  it("is not found by a lookup on the other side of the world", async () => {
    expect(await byPlace({ bbox: "0,-20,10,-10" })).toEqual([ids.edit]);
  });

  it("is found by a lookup near it from either side, measured the short way round", async () => {
    // -177.5 is 0.5° of longitude east of the box's east edge (-178), ~53 km at 16.5°S; 177.5 as far west.
    expect(await byPlace({ near: "-177.5,-16.5", radiusKm: "60" })).toEqual([ids.fiji]);
    expect(await byPlace({ near: "-177.5,-16.5", radiusKm: "40" })).toEqual([]);
    expect(await byPlace({ near: "177.5,-16.5", radiusKm: "60" })).toEqual([ids.fiji]);
    expect(await byPlace({ near: "177.5,-16.5", radiusKm: "40" })).toEqual([]);
    expect(await byPlace({ near: "179.99,-16.5", radiusKm: "1" })).toEqual([ids.fiji]); // inside, by 180
    expect(await byPlace({ near: "0,-16.5", radiusKm: "1000" })).toEqual([ids.edit]); // ~530 km to 5°E, not Fiji
  });

  it("is stored unwrapped when an edit moves a geometry across the antimeridian", async () => {
    const user = await makeUser(db, "analyst");
    const ctx = {
      scope: UNSCOPED,
      actor: { id: user.id, email: user.email, role: "analyst" as const },
      requestId: "t",
      now: new Date(),
      canOverrideIdentity: false,
    };
    const d = await getDeadLetter(db.pool, ids.edit!);
    const payload = { ...(d.payload as Record<string, unknown>), geometry: ring(179.5, -19, -179.5, -18) };
    await applyAction(db.pool, ids.edit!, { action: "edit", version: d.version, payload }, ctx);
    expect(await storedBox(ids.edit!)).toBe("(180.5,-18),(179.5,-19)");
    expect(await list("0,-20,10,-10")).toEqual([]);
    expect(await list("-180,-20,-179,-10")).toContain(ids.edit);
  });
});

describe("the unwrap_antimeridian_boxes migration", () => {
  it("unwraps the boxes stored before, leaves true boxes alone, and changes nothing when run again", async () => {
    const name = (await readdir(MIGRATIONS_DIR)).find((n) => n.endsWith("_unwrap_antimeridian_boxes"));
    const sql = await readFile(join(MIGRATIONS_DIR, name!, "migration.sql"), "utf8");
    const insert = async (key: string, crosses: boolean | null, box: [number, number, number, number]) =>
      (
        await db.pool.query<{ id: string }>(
          `INSERT INTO dead_letter (kind, source, idempotency_key, observed_at, first_seen_at, first_failure_reason, reason, reason_group,
           failure_class, payload, analysis, bbox)
         VALUES ('spatial', 'old', $1, now(), now(), 'r', 'r', 'r', 'transient', '{}'::jsonb,
           CASE WHEN $2::boolean IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('crosses_antimeridian', $2::boolean) END,
           box(point($3, $4), point($5, $6))) RETURNING id::text AS id`,
          [key, crosses, ...box],
        )
      ).rows[0]!.id;
    // As the old store wrote them: the RFC 7946 corners, reordered by PostgreSQL.
    const old = await insert("m-fiji", true, [178, -17, -178, -16]);
    const touching = await insert("m-touch", true, [170, -5, 180, 5]); // crosses, but its box is true: 170..180
    const world = await insert("m-world", true, [-180, 60, 180, 80]);
    const wide = await insert("m-wide", false, [-100, 0, 100, 10]); // 200° wide and honest
    const unknown = await insert("m-unknown", null, [-10, 0, 10, 10]);
    const before = await db.pool.query<{ version: number; updated_at: Date }>("SELECT version, updated_at FROM dead_letter WHERE id = $1", [
      old,
    ]);
    await db.pool.query(sql);
    expect(await storedBox(old)).toBe("(182,-16),(178,-17)");
    expect(await storedBox(touching)).toBe("(180,5),(170,-5)");
    expect(await storedBox(world)).toBe("(180,80),(-180,60)");
    expect(await storedBox(wide)).toBe("(100,10),(-100,0)");
    expect(await storedBox(unknown)).toBe("(10,10),(-10,0)");
    const after = await db.pool.query<{ version: number; updated_at: Date }>("SELECT version, updated_at FROM dead_letter WHERE id = $1", [
      old,
    ]);
    expect(after.rows[0]).toEqual(before.rows[0]);
    await db.pool.query(sql);
    expect(await storedBox(old)).toBe("(182,-16),(178,-17)");
    expect(await list("-179,-20,-172,-10")).toContain(old);
    expect(await list("0,-20,10,-10")).not.toContain(old);
  });
});
