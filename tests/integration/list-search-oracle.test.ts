import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { Role } from "../../lib/auth/permissions";
import { closeDb, type Db } from "../../lib/db/client";
import { ListFilterSchema, ListQuerySchema } from "../../lib/dead-letters/filters";
import { MapPointsQuerySchema } from "../../lib/dead-letters/contract/map";
import { ExportQuerySchema, LookupQuerySchema } from "../../lib/forensics/forensics-schemas";
import { ingest } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// The search oracle: a reader who sees a card number masked ("order-••••••••••••1111-a") must not rebuild it by
// growing a prefix one digit at a time, or by trying substrings, in any parameter any of the list's read paths
// accepts. The parameters are enumerated from each path's own query schema, so a parameter added later is probed
// too. Every card record has a twin holding a decoy number instead (same time, place, kind and status; only the
// source name differs), and every probe is built from the real number: whatever a probe finds (a time bound made
// of digits finds every record after 1970), it must find the twins alike, so nothing depends on the stored digits.
// A parameter that takes text must find neither.

setTestAuthEnv();

const PAN = "4111111111111111";
const DECOY = "5555555555554444";
const LATER = "2030-01-01T00:00:00Z";

let db: Db;
const card: string[] = [];
const twin: string[] = [];
let control: string;
const tokens: Partial<Record<Role, string>> = {};

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function call(
  role: Role,
  handler: Handler,
  path: string,
  init: { method?: string; body?: unknown; params?: Record<string, string> } = {},
) {
  tokens[role] ??= await makeToken(db, (await makeUser(db, role)).id);
  const res = await handler(
    new Request(`http://localhost${path}`, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${tokens[role]}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
    { params: Promise.resolve(init.params ?? {}) },
  );
  return { status: res.status, text: await res.text() };
}

const envelope = (o: { key: string; at: string; feature: string; reason: string; messageId?: string; ref?: string; source?: string }) =>
  JSON.stringify({
    kind: "spatial",
    source: o.source ?? "oracle",
    idempotency_key: o.key,
    observed_at: o.at,
    ...(o.messageId ? { source_message_id: o.messageId } : {}),
    feature: {
      type: "Feature",
      id: o.feature,
      properties: { name: "plot", ...(o.ref ? { ref: o.ref } : {}) },
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
    dead_letter_reason: o.reason,
  });

beforeAll(async () => {
  db = await testDb();
  // Lookup finds a record by its id, which the reader is shown: ids from 700001 (a 7, which no probe of the card
  // number holds) keep an id that happens to equal a probe from counting as a find by content.
  await db.pool.query("SELECT setval(pg_get_serial_sequence('dead_letter', 'id'), 700000)");
  const records = (n: string, source: string) => [
    envelope({
      key: `order-${n}-a`,
      at: "2030-06-01T00:00:00Z",
      feature: `parcel-${n}`,
      reason: `declined ${n}`,
      messageId: `msg-${n}`,
      ref: `paid ${n}`,
      source,
    }),
    envelope({ key: n, at: "2030-06-02T00:00:00Z", feature: `plot-${source}`, reason: "declined card", source }),
  ];
  const ids = await ingest(db, [
    ...records(PAN, "oracle"),
    ...records(DECOY, "oracle-twin"),
    envelope({ key: "order-control", at: "2026-06-01T00:00:00Z", feature: "plot-c", reason: "declined card", source: "control" }),
  ]);
  card.push(ids[0]!, ids[1]!);
  twin.push(ids[2]!, ids[3]!);
  control = ids[4]!;
  const notes = (await import("../../app/api/dead-letters/[id]/notes/route")) as unknown as Record<string, Handler>;
  for (const [id, text] of [
    [card[0]!, `refund to card ${PAN} done`],
    [twin[0]!, `refund to card ${DECOY} done`],
    [control, "refund to card done"],
  ] as const) {
    expect(
      (await call("analyst", notes.POST!, `/api/dead-letters/${id}/notes`, { method: "POST", body: { text }, params: { id } })).status,
    ).toBe(201);
  }
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

interface Found {
  real: number;
  twin: number;
}

interface Path {
  name: string;
  route: string;
  schema: z.ZodObject;
  /** how many of the card records, and of their twins, the answer found */
  found: (text: string, param: string) => Found;
}

const ofIds = (ids: string[]): Found => ({
  real: ids.filter((id) => card.includes(id)).length,
  twin: ids.filter((id) => twin.includes(id)).length,
});
const bucket = (buckets: { value: string; count: number }[], value: string) => buckets.find((b) => b.value === value)?.count ?? 0;

const PATHS: Path[] = [
  {
    name: "list",
    route: "dead-letters",
    schema: ListQuerySchema,
    found: (t) => ofIds((JSON.parse(t) as { items: { id: string }[] }).items.map((i) => i.id)),
  },
  {
    name: "facets",
    route: "dead-letters/facets",
    schema: ListFilterSchema,
    found: (t, param) => {
      const { source, total } = JSON.parse(t) as { source: { value: string; count: number }[]; total: number };
      // A facet counts its own dimension without its own filter (the other sources stay offered): the total then.
      if (param === "source") return { real: total, twin: total };
      return { real: bucket(source, "oracle"), twin: bucket(source, "oracle-twin") };
    },
  },
  {
    name: "map points",
    route: "dead-letters/map-points",
    schema: MapPointsQuerySchema,
    found: (t) => ofIds((JSON.parse(t) as { features: { properties: { id?: string } }[] }).features.flatMap((f) => f.properties.id ?? [])),
  },
  {
    name: "export",
    route: "export",
    schema: ExportQuerySchema,
    // CSV: the record id is the first cell of each row after the header
    found: (t) =>
      ofIds(
        t
          .trim()
          .split("\n")
          .slice(1)
          .map((line) => line.split(",")[0]!.replace(/"/g, "")),
      ),
  },
  {
    name: "lookup",
    route: "lookup",
    schema: LookupQuerySchema,
    found: (t) => ofIds((JSON.parse(t) as { records: { id: string }[] }).records.map((r) => r.id)),
  },
];

/** Prefixes grown one digit at a time, alone and after the text a reader sees before the mask; and substrings. */
function probes(number: string, text: boolean): string[] {
  const contexts = text ? ["", "order-", "parcel-", "msg-", "refund to card ", "paid ", "declined "] : [""];
  const out: string[] = [];
  for (const c of contexts) for (let n = 1; n <= number.length; n++) out.push(c + number.slice(0, n));
  for (const len of [3, 4, 6, 8, 12]) for (let s = 1; s + len <= number.length; s += 3) out.push(number.slice(s, s + len));
  return out;
}

async function inBatches<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

describe("the search oracle finds nothing a reader is shown masked", () => {
  it("finds the records by what the reader is shown", async () => {
    const list = ((await import("../../app/api/dead-letters/route")) as { GET: Handler }).GET;
    const ids = async (qs: string) =>
      (JSON.parse((await call("analyst", list, `/api/dead-letters?${qs}`)).text) as { items: { id: string }[] }).items.map((i) => i.id);
    expect(await ids(`q=order-&from=${LATER}&source=oracle`)).toEqual([card[0]]);
    expect(await ids("note=refund+to+card&source=oracle")).toEqual([card[0]]);
    expect(await ids("note=refund+to+card")).toContain(control);
    expect(await ids("q=paid&source=oracle")).toEqual([card[0]]);
    // the whole card number is refused, naming the parameter
    const refused = await call("analyst", list, `/api/dead-letters?note=${PAN}`);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('"path":"note"');
    expect(refused.text).not.toContain(PAN);
    // Lookup: refused without unmask rights; an auditor finds the record by the real value.
    const lookup = ((await import("../../app/api/lookup/route")) as { GET: Handler }).GET;
    const analyst = await call("analyst", lookup, `/api/lookup?q=${PAN}`);
    expect(analyst.status).toBe(422);
    expect(analyst.text).toContain('"path":"q"');
    const auditor = await call("auditor", lookup, `/api/lookup?q=${PAN}`);
    expect((JSON.parse(auditor.text) as { records: { id: string }[] }).records.map((r) => r.id)).toEqual([card[1]]);
  });

  it("over every parameter of the list, facets, map points, export and lookup, for an analyst", async () => {
    const started = Date.now();
    let asked = 0;
    for (const path of PATHS) {
      const handler = ((await import(`../../app/api/${path.route}/route`)) as { GET: Handler }).GET;
      const params = Object.keys(path.schema.shape);
      expect(params.length, path.name).toBeGreaterThan(3);
      for (const param of params) {
        const text = path.schema.shape[param]!.safeParse("order-x").success;
        const results = await inBatches(probes(PAN, text), 6, async (probe) => {
          const qs = new URLSearchParams({ [param]: probe });
          if (path.name === "export" && param !== "format") qs.set("format", "csv");
          // a cheap check for lookup with a time only (it needs a key or a place): a place around every record
          if (path.name === "lookup" && param !== "q" && param !== "bbox" && param !== "near") qs.set("bbox", "9,49,11,51");
          const res = await call("analyst", handler, `/api/${path.route}?${qs}`);
          expect([200, 400, 422], `${path.name} ${param}=${probe}: ${res.text.slice(0, 200)}`).toContain(res.status);
          return { probe, ...(res.status === 200 ? path.found(res.text, param) : { real: 0, twin: 0 }) };
        });
        asked += results.length;
        for (const res of results) {
          expect(res.real, `${path.name} ${param}=${res.probe} found the card record(s), ${res.twin} of their twins`).toBe(res.twin);
          if (text) expect(res.real, `${path.name} ${param}=${res.probe}`).toBe(0);
        }
      }
    }
    console.info(`search oracle: ${asked} requests in ${Date.now() - started} ms`);
  }, 600_000);
});
