import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteHandler } from "../../lib/api/handler";
import { can } from "../../lib/auth/permissions";
import { closeDb, type Db } from "../../lib/db/client";
import { envelopeAnswer } from "../../lib/dead-letters/ingest/arrival-outcome";
import { ingest } from "../../lib/dead-letters/ingest/ingest";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// A producer can only touch its own records (issue 40 point 4). Producer B sends producer A's keys again through
// every write a producer can make — POST /api/dead-letters in each body format (the browser's import sends the
// same NDJSON slices), POST /api/afc/taps in each of its forms, `redrive import` (the CLI's sender is not A either),
// and every other method of the producer routes — and none of them changes A's records (status, class, reason,
// replay count, version) or answers with their ids; each re-send is kept in the record's history as "also sent by".
// The route list is read from disk: a new route a producer may write through fails here until it is listed.

setTestAuthEnv();

type Handler = Partial<RouteHandler> & ((req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>);

const WRITES = ["POST", "PUT", "PATCH", "DELETE"] as const;

/** Every write a producer's role may call, and what it has to do with records. */
const PRODUCER_WRITES: Record<string, string> = {
  "POST /api/dead-letters": "ingest: exercised below in every body format",
  "POST /api/afc/taps": "capture: exercised below in every body form",
  "POST /api/tokens": "the producer's own API tokens: no record is read or written",
  "DELETE /api/tokens/[id]": "revokes one of the producer's own tokens: no record is read or written",
};

/** Every route file under app/api, with its URL as written on disk (`/api/tokens/[id]`). */
function routeFiles(): { file: string; url: string }[] {
  return readdirSync(join(process.cwd(), "app", "api"), { recursive: true, encoding: "utf8" })
    .filter((f) => /(^|[/\\])route\.ts$/.test(f))
    .map((f) => `api/${f.split(sep).join("/")}`)
    .map((file) => ({ file, url: `/${file.replace(/\/route\.ts$/, "")}` }));
}

let db: Db;
let aToken: string;
let bToken: string;
let bEmail: string;
let bId: string;
const modules = new Map<string, Record<string, unknown>>();
const routes = routeFiles();
for (const r of routes) modules.set(r.file, (await import(join(process.cwd(), "app", r.file))) as Record<string, unknown>);
const handlerOf = (file: string, method: string) => modules.get(file)?.[method] as Handler;

beforeAll(async () => {
  db = await testDb();
  const [a, b] = await Promise.all([makeUser(db, "producer"), makeUser(db, "producer")]);
  [aToken, bToken] = await Promise.all([makeToken(db, a.id), makeToken(db, b.id)]);
  bEmail = b.email;
  bId = b.id;
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

async function call(
  file: string,
  method: string,
  token: string,
  opts: { body?: string; type?: string | null; params?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (opts.type) headers["content-type"] = opts.type;
  const url = `http://localhost/${file.replace(/\/route\.ts$/, "").replace(/\[(\w+)\]/g, (_, p: string) => opts.params?.[p] ?? "1")}`;
  const res = await handlerOf(file, method)(new Request(url, { method, headers, body: opts.body }), {
    params: Promise.resolve(opts.params ?? {}),
  });
  return { status: res.status, text: await res.text() };
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
const spatial = (reason: string, replayCount = 0) => ({
  kind: "spatial",
  source: "parcels",
  idempotency_key: "iso-a-parcel-1",
  observed_at: "2026-12-01T00:00:00Z",
  feature: { type: "Feature", id: "iso-a-parcel-1", geometry: { type: "Polygon", coordinates: square }, properties: {} },
  dead_letter_reason: reason,
  replay_count: replayCount,
});
const tap = { event_id: "iso-a-tap-1", device_id: "iso-dev-1", fare_amount_cents: "250", tap_timestamp: "2026-12-01T08:00:00Z" };
const afcRecord = (reason: string) => ({ kind: "afc", source: "gates", raw_payload: tap, failure_reason: reason, retry_count: 5 });

interface Snapshot {
  id: string;
  status: string;
  failure_class: string;
  class_reason: string | null;
  reason: string;
  replay_count: number;
  version: number;
  failure_count: number;
}

async function aRecords(): Promise<Snapshot[]> {
  const { rows } = await db.pool.query<Snapshot>(
    `SELECT id::text, status::text, failure_class::text, class_reason, reason, replay_count, version, failure_count
     FROM dead_letter WHERE idempotency_key = 'iso-a-parcel-1' OR event_id = 'iso-a-tap-1' ORDER BY id`,
  );
  return rows;
}

/** The ids a write's answer carries (results[].id, whatever the form). */
function answeredIds(text: string): string[] {
  const ids: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "id" && typeof x === "string") ids.push(x);
        else walk(x);
      }
    }
  };
  walk(JSON.parse(text));
  return ids;
}

describe("a producer's writes and another producer's records", () => {
  it("lists every write a producer's role may call (a new one must be added here, with what it does to records)", () => {
    const found: string[] = [];
    for (const r of routes) {
      for (const method of WRITES) {
        const h = handlerOf(r.file, method);
        const access = h?.meta?.access;
        if (!access || "notAllowed" in access || "public" in access) continue;
        if (can("producer", access.permission)) found.push(`${method} ${r.url}`);
      }
    }
    expect(found.sort()).toEqual(Object.keys(PRODUCER_WRITES).sort());
  });

  it("none of them changes A's records or reveals their ids; each re-send is in the history as sent by B", async () => {
    // A's records: a spatial envelope and a captured tap, both approved (the probe's case).
    const created = await call("api/dead-letters/route.ts", "POST", aToken, {
      body: JSON.stringify(spatial("HTTP 503")),
      type: "application/json",
    });
    expect(created.status).toBe(200);
    const captured = await call("api/afc/taps/route.ts", "POST", aToken, { body: JSON.stringify([tap]), type: "application/json" });
    expect(JSON.parse(captured.text)).toMatchObject({ captured: 1 });
    const mine = await aRecords();
    expect(mine).toHaveLength(2);
    await db.pool.query(`UPDATE dead_letter SET status = 'approved' WHERE id = ANY($1::bigint[])`, [mine.map((r) => r.id)]);
    const before = await aRecords();
    const aIds = before.map((r) => r.id);

    const s = (reason: string) => JSON.stringify(spatial(reason, 3));
    const f = (reason: string) => JSON.stringify(afcRecord(reason));
    const writes: { name: string; file: string; type: string | null; body: string; arrivals: number }[] = [
      { name: "one JSON envelope", file: "api/dead-letters/route.ts", type: "application/json", body: s("B one"), arrivals: 1 },
      { name: "text/json", file: "api/dead-letters/route.ts", type: "text/json", body: f("B text/json"), arrivals: 1 },
      {
        name: "a JSON array",
        file: "api/dead-letters/route.ts",
        type: "application/json",
        body: `[${s("B array")},${f("B array")}]`,
        arrivals: 2,
      },
      {
        name: "concatenated JSON values",
        file: "api/dead-letters/route.ts",
        type: "application/json",
        body: `${s("B concat")} ${f("B concat")}`,
        arrivals: 2,
      },
      ...["application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"].map((type) => ({
        name: `NDJSON as ${type} (the browser's import sends these)`,
        file: "api/dead-letters/route.ts",
        type,
        body: `${s(`B ${type}`)}\n${f(`B ${type}`)}\n`,
        arrivals: 2,
      })),
      { name: "taps: one tap", file: "api/afc/taps/route.ts", type: "application/json", body: JSON.stringify(tap), arrivals: 1 },
      { name: "taps: an array", file: "api/afc/taps/route.ts", type: "application/json", body: JSON.stringify([tap]), arrivals: 1 },
      {
        name: "taps: {source, taps}",
        file: "api/afc/taps/route.ts",
        type: "application/json",
        body: JSON.stringify({ source: "gates", taps: [tap] }),
        arrivals: 1,
      },
      { name: "taps: NDJSON", file: "api/afc/taps/route.ts", type: "application/x-ndjson", body: `${JSON.stringify(tap)}\n`, arrivals: 1 },
    ];
    let arrivals = 0;
    for (const w of writes) {
      const res = await call(w.file, "POST", bToken, { body: w.body, type: w.type });
      expect(res.status, `${w.name}: ${res.text}`).toBe(200);
      expect(
        answeredIds(res.text).filter((id) => aIds.includes(id)),
        w.name,
      ).toEqual([]);
      expect(res.text, w.name).toContain('"duplicate"');
      arrivals += w.arrivals;
    }

    // `redrive import` (the CLI: no user, so not A) — the operator's channel is another sender too
    async function* lines() {
      yield { index: 0, text: s("CLI import") };
      yield { index: 1, text: f("CLI import") };
    }
    const cli = { pool: db.pool, actor: { id: null, email: "cli:ops", role: "operator" }, requestId: "cli", threads: null };
    for await (const results of await ingest({ via: "records", records: lines() }, cli)) {
      for (const r of results.map(envelopeAnswer)) {
        expect(r.status).toBe("duplicate");
        expect("id" in r).toBe(false);
      }
    }
    arrivals += 2;

    // the producer routes: reads answer 404 for A's record, every other method 405
    for (const r of routes.filter((x) => x.file.startsWith("api/producer/"))) {
      for (const method of WRITES) {
        if (typeof handlerOf(r.file, method) !== "function") continue;
        expect((await call(r.file, method, bToken, { params: { id: aIds[0]! }, body: "{}", type: "application/json" })).status).toBe(405);
      }
      const read = await call(r.file, "GET", bToken, { params: { id: aIds[0]! } });
      if (r.file.includes("[id]")) expect(read.status).toBe(404);
      else expect(answeredIds(read.text).filter((id) => aIds.includes(id))).toEqual([]);
    }

    const after = await aRecords();
    const unchanged = (rows: Snapshot[]) => rows.map(({ failure_count: _, ...rest }) => rest);
    expect(unchanged(after)).toEqual(unchanged(before));
    expect(after.reduce((n, r) => n + r.failure_count, 0) - before.reduce((n, r) => n + r.failure_count, 0)).toBe(arrivals);
    const senders = await db.pool.query<{ also_sent_by: string; n: number }>(
      `SELECT also_sent_by, count(*)::int AS n FROM failure_attempt WHERE dead_letter_id = ANY($1::bigint[]) AND attempt > 1
       GROUP BY 1 ORDER BY 1`,
      [aIds],
    );
    expect(senders.rows).toEqual(
      [
        { also_sent_by: bEmail, n: arrivals - 2 },
        { also_sent_by: "cli:ops", n: 2 },
      ].sort((x, y) => (x.also_sent_by < y.also_sent_by ? -1 : 1)),
    );
    // B's own view holds none of it
    const own = await call("api/producer/records/route.ts", "GET", bToken);
    expect(JSON.parse(own.text)).toMatchObject({ items: [], counts: { total: 0 } });
    expect(bId).not.toBe("");
  });
});
