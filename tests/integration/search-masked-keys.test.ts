import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { ingest } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// A deployment that masks more keys than the defaults (REDRIVE_MASK_KEYS): the payload search must not find a
// record by a value its readers are shown masked, on any read path the list's filter reaches (list, facets, map
// points, export), whether the value is searched as words, key:value or path = value. The stored search document
// leaves out the default keys' values only; the deployment's own keys are rechecked per match.

process.env.REDRIVE_MASK_KEYS = "card*,pan,token,account*,rider*";
setTestAuthEnv();

let db: Db;
let token = "";
let hidden = "";
let shown = "";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

const record = (key: string, properties: Record<string, unknown>) =>
  JSON.stringify({
    kind: "spatial",
    source: "mask-search",
    idempotency_key: key,
    observed_at: "2026-12-01T00:00:00Z",
    feature: {
      type: "Feature",
      id: key,
      properties,
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [10, 50],
            [10.01, 50],
            [10.01, 50.01],
            [10, 50.01],
            [10, 50],
          ],
        ],
      },
    },
    dead_letter_reason: "HTTP 500 from parcels API",
  });

async function get(route: string, qs: Record<string, string>): Promise<{ status: number; text: string }> {
  const handler = ((await import(`../../app/api/${route}/route`)) as { GET: Handler }).GET;
  const res = await handler(
    new Request(`http://localhost/api/${route}?${new URLSearchParams(qs)}`, { headers: { authorization: `Bearer ${token}` } }),
    {
      params: Promise.resolve({}),
    },
  );
  return { status: res.status, text: await res.text() };
}

/** The records each read path finds for a filter, by id. */
const PATHS: Record<string, (qs: Record<string, string>) => Promise<string[]>> = {
  list: async (qs) => (JSON.parse((await get("dead-letters", qs)).text) as { items: { id: string }[] }).items.map((i) => i.id),
  facets: async (qs) => {
    const { total } = JSON.parse((await get("dead-letters/facets", qs)).text) as { total: number };
    return total === 0 ? [] : [`${total} record(s)`];
  },
  "map points": async (qs) =>
    (JSON.parse((await get("dead-letters/map-points", qs)).text) as { features: { properties: { id?: string } }[] }).features.flatMap(
      (f) => f.properties.id ?? [],
    ),
  export: async (qs) =>
    (await get("export", { ...qs, format: "csv" })).text
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.split(",")[0]!.replace(/"/g, "")),
};

beforeAll(async () => {
  db = await testDb();
  token = await makeToken(db, (await makeUser(db, "analyst")).id);
  const ids = await ingest(db, [
    record("mk-hidden", { rider_email: "alice kepler", rider: { phone: "zephyr-5550100" }, name: "plot" }),
    record("mk-shown", { contact: "bob kepler", name: "plot" }),
  ]);
  [hidden, shown] = [ids[0]!, ids[1]!];
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("payload search under the deployment's masked keys", () => {
  it("shows the deployment's keys masked (the setup is what the probes assume)", async () => {
    const detail = ((await import("../../app/api/dead-letters/[id]/route")) as { GET: Handler }).GET;
    const res = await detail(
      new Request(`http://localhost/api/dead-letters/${hidden}`, { headers: { authorization: `Bearer ${token}` } }),
      {
        params: Promise.resolve({ id: hidden }),
      },
    );
    const text = await res.text();
    expect(text).not.toContain("alice");
    expect(text).not.toContain("zephyr");
  });

  for (const [name, found] of Object.entries(PATHS)) {
    it(`${name}: finds nothing by a masked value, and finds a record by a value it shows`, async () => {
      for (const q of ["alice", "alice kepler", 'rider_email:"alice kepler"', "phone:zephyr-5550100", "zephyr"]) {
        expect(await found({ q, source: "mask-search" }), `${name} q=${q}`).toEqual([]);
      }
      expect(await found({ q: 'properties.rider.phone = "zephyr-5550100"', source: "mask-search" }), `${name} path`).toEqual([]);
      const bob = await found({ q: "bob", source: "mask-search" });
      expect(bob, `${name} q=bob`).toHaveLength(1);
      if (name !== "facets") expect(bob).toEqual([shown]);
      expect(await found({ q: "plot", source: "mask-search" }), `${name} q=plot`).toHaveLength(name === "facets" ? 1 : 2);
    });
  }
});
