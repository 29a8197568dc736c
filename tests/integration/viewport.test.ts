import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { countMatching } from "../../lib/dead-letters/query/facets";
import { ListQuerySchema } from "../../lib/dead-letters/filters";
import { listDeadLetters } from "../../lib/dead-letters/query/list";
import { mapPoints } from "../../lib/dead-letters/query/map-points";
import { testDb } from "./helpers";

// A map view across the antimeridian against a real database: the list, its count and the map's points find
// the records on both sides of ±180° (the view used to be clamped to one side).

let db: Db;
const ids: Record<string, string> = {};

async function spatial(name: string, box: [number, number, number, number]): Promise<void> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO dead_letter (kind, source, observed_at, first_seen_at, first_failure_reason, reason, reason_group, failure_class, payload, bbox)
     VALUES ('spatial', 'fiji', now(), now(), 'r', 'r', 'r', 'transient', '{}'::jsonb, box(point($1, $2), point($3, $4))) RETURNING id::text`,
    box,
  );
  ids[name] = rows[0]!.id;
}

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "failure_attempt"] });
  await spatial("westOf180", [178.1, -18.2, 178.5, -17.9]); // Suva
  await spatial("eastOf180", [-179.9, -16.6, -179.8, -16.5]); // Taveuni's far side
  await spatial("paris", [2.3, 48.8, 2.4, 48.9]);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const list = async (bbox: string) =>
  (await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ bbox, limit: 50 }))).items.map((i) => i.id).sort();

describe("a viewport across ±180°", () => {
  it("lists, counts and maps the records on both sides", async () => {
    const both = [ids.westOf180!, ids.eastOf180!].sort();
    expect(await list("175,-20,185,-15")).toEqual(both); // scrolled east past 180
    expect(await list("-185,-20,-175,-15")).toEqual(both); // the same place, scrolled west past -180
    const bbox = ListQuerySchema.parse({ bbox: "175,-20,185,-15" }).bbox!;
    expect(await countMatching(db.pool, UNSCOPED, { bbox })).toBe(2);
    const points = await mapPoints(db.pool, UNSCOPED, { bbox }, 6);
    expect(points.features.map((f) => f.properties.id).sort()).toEqual(both);
  });

  it("still finds only what is in an ordinary view", async () => {
    expect(await list("175,-20,179,-15")).toEqual([ids.westOf180!]);
    expect(await list("2,48,3,49")).toEqual([ids.paris!]);
    expect(await list("362,48,363,49")).toEqual([ids.paris!]); // one world copy east
  });
});
