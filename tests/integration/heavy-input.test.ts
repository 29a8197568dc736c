import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { maskRules } from "../../lib/masking/rules";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, getDb, type Db } from "../../lib/db/client";
import { sharedNormalizePool } from "../../lib/dead-letters/ingest/normalize-pool";
import type { IngestResult } from "../../lib/dead-letters/ingest/arrival-outcome";
import type { Role } from "../../lib/auth/permissions";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { expectResponsive, HEALTH_BUDGET_MS, report, ringBytes, whileProbingHealth } from "./health-probe";

// One request with a huge record must not freeze the server: heavy parsing and GEOS run on worker threads
// whatever the batch size, and a geometry past the limits is poison before GEOS sees it. The server here is
// the route handlers in this process, with the process's real worker pool: the health route is called
// throughout the heavy request, on the same event loop the ingest runs on.

setTestAuthEnv();

let db: Db;
let token: string;
beforeAll(async () => {
  db = await testDb();
  process.env.DATABASE_URL = db.url;
  const producer = await makeUser(getDb(), "producer");
  token = await makeToken(getDb(), producer.id);
  // As the server does at boot (instrumentation.ts): threads are loaded before the first request, and so are
  // the routes (loading them while probing measured this test runner's module loader).
  sharedNormalizePool()?.warm();
  await import("../../app/api/dead-letters/route");
  await import("../../app/api/health/route");
});
afterAll(async () => {
  await sharedNormalizePool()?.close();
  await db.pool.end();
  await closeDb();
});

function envelope(key: string, geometry: string, properties = "{}"): string {
  return (
    `{"kind":"spatial","source":"parcels","idempotency_key":"${key}","observed_at":1700000000,"dead_letter_reason":"HTTP 503",` +
    `"replay_count":0,"feature":{"type":"Feature","id":"${key}","geometry":${geometry},"properties":${properties}}}`
  );
}

const SQUARE = '{"type":"Polygon","coordinates":[[[2.35,48.85],[2.36,48.85],[2.36,48.86],[2.35,48.86],[2.35,48.85]]]}';

/** The body as a socket delivers it: 64 KiB at a time, not one buffer already whole. */
function chunked(body: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= body.length) return controller.close();
      controller.enqueue(body.subarray(at, (at += 64 * 1024)));
    },
  });
}

async function post(body: Uint8Array, contentType: string): Promise<Response> {
  const { POST } = await import("../../app/api/dead-letters/route");
  const headers = { "content-type": contentType, authorization: `Bearer ${token}` };
  const stream = chunked(body);
  const req = new Request("http://localhost/api/dead-letters", { method: "POST", headers, body: stream, duplex: "half" } as RequestInit);
  return POST(req, { params: Promise.resolve({}) });
}

/** A triage action as a browser sends it: the body arriving in 64 KiB chunks. */
async function postAction(id: string, bearer: string, body: Uint8Array): Promise<Response> {
  const { POST } = await import("../../app/api/dead-letters/[id]/actions/route");
  const req = new Request(`http://localhost/api/dead-letters/${id}/actions`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: chunked(body),
    duplex: "half",
  } as RequestInit);
  return POST(req, { params: Promise.resolve({ id }) });
}

describe("a request with a huge record", () => {
  it("keeps health answering within 200 ms while a 1,000,000-vertex polygon is stored as poison, its batch mate fine", async () => {
    const [head, tail] = envelope("heavy-1m", "RING", '{"card":"4111111111111111"}').split("RING") as [string, string];
    const huge = Buffer.concat([Buffer.from(`${head}{"type":"Polygon","coordinates":[`), ringBytes(1_000_000), Buffer.from(`]}${tail}`)]);
    expect(huge.length).toBeGreaterThan(11_000_000);
    const body = Buffer.concat([huge, Buffer.from(`\n${envelope("heavy-mate", SQUARE)}\n`)]);
    const retiredBefore = sharedNormalizePool()?.retired ?? 0;
    const rssBefore = process.memoryUsage().rss;
    const run = await whileProbingHealth(async () => {
      const res = await post(body, "application/x-ndjson");
      expect(res.status).toBe(200);
      return ((await res.json()) as { results: IngestResult[] }).results;
    });
    console.log(report("1e6-vertex NDJSON", run));
    // The thread that held the 12 MB record is replaced, which is what gives its heaps back.
    expect(sharedNormalizePool()?.retired).toBeGreaterThan(retiredBefore);
    await new Promise((r) => setTimeout(r, 2000));
    const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
    console.log(`[heavy-input] process RSS ${mb(rssBefore)} MB before, ${mb(process.memoryUsage().rss)} MB 2 s after`);
    expect(run.value.map((r) => (r.status === "rejected" ? r.errors : r.status))).toEqual(["created", "created"]);
    expectResponsive(run);

    const { rows } = await db.pool.query<{ key: string; failure_class: string; class_reason: string; outcome: string; raw: number }>(
      `SELECT idempotency_key AS key, failure_class, class_reason, analysis->>'outcome' AS outcome, length(raw_envelope) AS raw
       FROM dead_letter WHERE idempotency_key IN ('heavy-1m', 'heavy-mate') ORDER BY idempotency_key`,
    );
    expect(rows).toEqual([
      // Kept whole (nothing lost), refused by the vertex limit before GEOS saw it.
      {
        key: "heavy-1m",
        failure_class: "poison",
        class_reason: "Geometry has more than 200000 vertices; the limit is 200000",
        outcome: "dropped",
        raw: huge.length,
      },
      { key: "heavy-mate", failure_class: "transient", class_reason: "geometry valid", outcome: "valid", raw: expect.any(Number) },
    ]);
  }, 180_000);

  it("parses a single JSON envelope with a 1e6-element properties array off the main thread", async () => {
    const props = `{"samples":[${"7,".repeat(999_999)}7]}`;
    const body = Buffer.from(envelope("heavy-props", SQUARE, props));
    const run = await whileProbingHealth(async () => {
      const res = await post(body, "application/json");
      expect(res.status).toBe(200);
      return ((await res.json()) as { results: IngestResult[] }).results;
    });
    console.log(report("1e6-element properties", run));
    expect(run.value.map((r) => r.status)).toEqual(["created"]);
    expectResponsive(run);
  }, 180_000);

  it("still answers 400 naming the body for a single JSON value that is not JSON, found on a thread", async () => {
    const res = await post(Buffer.from(envelope("heavy-bad", SQUARE).slice(0, -2)), "application/json");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_json", issues: [{ path: "body", message: "not valid JSON" }] } });
  });
});

describe("reading a huge record", () => {
  it("answers its detail (parsed, masked, serialized off the main thread) while health keeps answering", async () => {
    const { rows } = await db.pool.query<{ id: string }>(`SELECT id::text AS id FROM dead_letter WHERE idempotency_key = 'heavy-1m'`);
    const id = rows[0]!.id;
    const reader = await makeToken(getDb(), (await makeUser(getDb(), "analyst")).id);
    const { GET } = await import("../../app/api/dead-letters/[id]/route");
    const run = await whileProbingHealth(async () => {
      const req = new Request(`http://localhost/api/dead-letters/${id}`, { headers: { authorization: `Bearer ${reader}` } });
      const res = await GET(req, { params: Promise.resolve({ id }) });
      expect(res.status).toBe(200);
      return res;
    });
    console.log(report("1e6-vertex detail", run));
    // Read after the probes: the client reads and parses the answer on its own machine, not on the server's
    // event loop measured above.
    const detail = JSON.parse(await run.value.text()) as { payload: { geometry: { coordinates: number[][][] } }; rawEnvelope: string };
    expect(detail.payload.geometry.coordinates[0]).toHaveLength(1_000_001);
    expect(detail.rawEnvelope.length).toBeGreaterThan(11_000_000);
    expectResponsive(run);
  }, 180_000);

  it("gives the timeline page its size, not its evidence (the page would parse, mask and inline megabytes)", async () => {
    const { rows } = await db.pool.query<{ id: string }>(`SELECT id::text AS id FROM dead_letter WHERE idempotency_key = 'heavy-1m'`);
    const { recordEvidence } = await import("../../lib/forensics/evidence");
    const started = performance.now();
    const evidence = await recordEvidence(db.pool, rows[0]!.id, maskRules());
    expect(evidence).toMatchObject({ heavy: true });
    expect((evidence as { storedBytes: number }).storedBytes).toBeGreaterThan(256 * 1024);
    // Nothing of the record was read or parsed: as long as a health answer may take, not the seconds it did.
    expect(performance.now() - started).toBeLessThan(HEALTH_BUDGET_MS);
  });

  it("reopens it (poison is quarantined at ingest), answering the record, while health keeps answering", async () => {
    const { rows } = await db.pool.query<{ id: string; version: number }>(
      `SELECT id::text AS id, version FROM dead_letter WHERE idempotency_key = 'heavy-1m'`,
    );
    const { id, version } = rows[0]!;
    const analyst = await makeToken(getDb(), (await makeUser(getDb(), "analyst")).id);
    const run = await whileProbingHealth(async () => {
      const res = await postAction(id, analyst, Buffer.from(JSON.stringify({ action: "reopen", version })));
      if (res.status !== 200) throw new Error(`reopen answered ${res.status}: ${(await res.text()).slice(0, 400)}`);
      return res;
    });
    console.log(report("1e6-vertex reopen", run));
    const answer = JSON.parse(await run.value.text()) as {
      status: string;
      version: number;
      payload: { geometry: { coordinates: number[][][] } };
    };
    expect(answer).toMatchObject({ status: "pending", version: version + 1 });
    expect(answer.payload.geometry.coordinates[0]).toHaveLength(1_000_001);
    expectResponsive(run);
  }, 180_000);

  it("keeps health answering while an edit just under an action's 1 MB (a 78,000-vertex polygon) is checked and stored", async () => {
    const [head, tail] = envelope("heavy-78k", "RING").split("RING") as [string, string];
    const ring = ringBytes(78_000);
    const stored = await post(
      Buffer.concat([Buffer.from(`${head}{"type":"Polygon","coordinates":[`), ring, Buffer.from(`]}${tail}\n`)]),
      "application/x-ndjson",
    );
    expect(stored.status).toBe(200);
    expect(await stored.json()).toMatchObject({ results: [{ status: "created" }] });
    const { rows } = await db.pool.query<{ id: string; version: number }>(
      `SELECT id::text AS id, version FROM dead_letter WHERE idempotency_key = 'heavy-78k'`,
    );
    const { id, version } = rows[0]!;
    const analyst = await makeToken(getDb(), (await makeUser(getDb(), "analyst")).id);
    const body = Buffer.from(
      `{"action":"edit","version":${version},"reason":"property fixed","payload":{"type":"Feature","id":"heavy-78k","geometry":{"type":"Polygon","coordinates":[${ring.toString("utf8")}]},"properties":{"edited":true}}}`,
    );
    expect(body.length).toBeGreaterThan(900_000);
    expect(body.length).toBeLessThan(1024 * 1024);
    const run = await whileProbingHealth(() => postAction(id, analyst, body));
    console.log(report("78,000-vertex edit", run));
    expect(run.value.status).toBe(200);
    expect(await run.value.json()).toMatchObject({ version: version + 1, payload: { properties: { edited: true } } });
    expectResponsive(run);
  }, 180_000);

  it("refuses an edit with a 1e6-vertex payload (past an action's 1 MB) before reading it whole, holding nothing", async () => {
    const { rows } = await db.pool.query<{ id: string; version: number }>(
      `SELECT id::text AS id, version FROM dead_letter WHERE idempotency_key = 'heavy-1m'`,
    );
    const { id, version } = rows[0]!;
    const analyst = await makeToken(getDb(), (await makeUser(getDb(), "analyst")).id);
    const ring = ringBytes(1_000_000).toString("utf8");
    const body = Buffer.from(
      `{"action":"edit","version":${version},"reason":"simplified","payload":{"type":"Feature","id":"heavy-1m","geometry":{"type":"Polygon","coordinates":[${ring}]},"properties":{"edited":true}}}`,
    );
    const run = await whileProbingHealth(() => postAction(id, analyst, body));
    console.log(report("1e6-vertex edit", run));
    expect(run.value.status).toBe(413);
    expect(await run.value.json()).toMatchObject({
      error: { code: "payload_too_large", issues: [{ path: "body", message: "larger than 1 MB" }] },
    });
    // Refused within a probe or two: nothing was parsed.
    if (run.heldCpuMaxMs !== null) expect(run.heldCpuMaxMs).toBeLessThan(HEALTH_BUDGET_MS);
  }, 180_000);
});

// ---- every route that reads a stored payload ------------------------------------------------------------------
// No request thread does heavy work: every route that can read a stored record's payload or envelope, or run GEOS,
// is found from the imports on disk (a route whose modules reach a SELECT of payload, raw_envelope or
// repaired_geometry, or GEOS), and each is called on the stored 1,000,000-vertex record while health is probed.
// A new route that reaches those modules fails "lists every such route" until it is probed here (or excused, with
// the reason, where another test covers it).

const root = process.cwd();

// ---- which routes reach a payload reader -----------------------------------------------------------------------

function resolveImport(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = join(root, spec.slice(2));
  else if (spec.startsWith(".")) base = resolve(dirname(from), spec);
  else return null;
  for (const c of [`${base}.ts`, `${base}.tsx`, join(base, "index.ts"), base]) if (existsSync(c) && /\.(ts|tsx|mjs)$/.test(c)) return c;
  return null;
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
const importsOf = new Map<string, string[]>();

function imports(file: string): string[] {
  let out = importsOf.get(file);
  if (!out) {
    out = [];
    for (const m of readFileSync(file, "utf8").matchAll(IMPORT)) {
      if (m[2]) continue; // a type is not code that runs
      const target = resolveImport(file, (m[3] ?? m[4])!);
      if (target) out.push(target);
    }
    importsOf.set(file, out);
  }
  return out;
}

function closure(file: string): Set<string> {
  const seen = new Set([file]);
  const stack = [file];
  while (stack.length) {
    for (const d of imports(stack.pop()!)) {
      if (seen.has(d)) continue;
      seen.add(d);
      stack.push(d);
    }
  }
  return seen;
}

const STRING = /`[^`]*`|"[^"\n]*"/g;

/** A module that reads a stored record's heavy columns (in its SQL) or runs GEOS. */
function readsPayload(file: string): boolean {
  if (!file.startsWith(join(root, "lib")) || file.startsWith(join(root, "lib/spatial"))) return false;
  const src = readFileSync(file, "utf8");
  if (/["'][^"']*spatial\/geos["']/.test(src)) return true;
  return [...src.matchAll(STRING)].some(
    ([s]) => /\b(SELECT|RETURNING)\b/.test(s) && /\b(payload|raw_envelope|repaired_geometry|DETAIL_COLUMNS)\b/.test(s),
  );
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** "METHOD /api/…" of every route handler (not otherMethods' 405s) whose modules reach a payload reader. */
function heavyRoutes(): string[] {
  const apiDir = join(root, "app/api");
  const out: string[] = [];
  for (const f of readdirSync(apiDir, { recursive: true, encoding: "utf8" })) {
    if (!/(^|\/)route\.ts$/.test(f)) continue;
    const file = join(apiDir, f);
    if (![...closure(file)].some(readsPayload)) continue;
    const src = readFileSync(file, "utf8");
    const lacking = /export const \{([^}]*)\} = otherMethods/.exec(src)?.[1] ?? "";
    const path = `/api/${f.replace(/\/?route\.ts$/, "")}`;
    for (const m of METHODS) {
      if (new RegExp(`\\b${m}\\b`).test(lacking)) continue;
      if (new RegExp(`export const ${m}\\b|\\bas ${m}\\b`).test(src)) out.push(`${m} ${path}`);
    }
  }
  return out.sort();
}

let id = "";
const key = "heavy-1m";
const tokens = new Map<Role, string>();

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

async function call(role: Role, method: string, route: string, url: string, params: Record<string, string | string[]>, body?: unknown) {
  const mod = (await import(join(root, "app/api", route, "route.ts"))) as Record<string, Handler>;
  const req = new Request(`http://localhost${url}`, {
    method,
    headers: { authorization: `Bearer ${tokens.get(role)}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const res = await mod[method]!(req, { params: Promise.resolve(params) });
  // The whole answer, as a client reads it (a stream's rows are built as it is read).
  const buf = await res.arrayBuffer();
  return { status: res.status, bytes: buf.byteLength };
}

const version = async () =>
  (await db.pool.query<{ version: number }>("SELECT version FROM dead_letter WHERE id = $1", [id])).rows[0]!.version;

/**
 * How each route is called on the heavy record, with the status it must answer: "METHOD /api/…", or the same with
 * "?…" for one of several calls of a route (each export format). Run in this order: the last ones change the
 * record (release, then purge).
 */
const PROBES: Record<string, () => Promise<{ status: number; bytes: number }>> = {
  "GET /api/dead-letters/[id]": () => call("analyst", "GET", "dead-letters/[id]", `/api/dead-letters/${id}`, { id }),
  "GET /api/dead-letters/[id]/repair-preview": () =>
    call("analyst", "GET", "dead-letters/[id]/repair-preview", `/api/dead-letters/${id}/repair-preview`, { id }),
  "POST /api/dead-letters/[id]/reveal": () =>
    call("auditor", "POST", "dead-letters/[id]/reveal", `/api/dead-letters/${id}/reveal`, { id }, { path: "/payload/properties/card" }),
  "GET /api/dead-letters/[id]/timeline": () =>
    call("analyst", "GET", "dead-letters/[id]/timeline", `/api/dead-letters/${id}/timeline`, { id }),
  "GET /api/dead-letters/[id]/notes": () => call("analyst", "GET", "dead-letters/[id]/notes", `/api/dead-letters/${id}/notes`, { id }),
  "POST /api/dead-letters/[id]/notes": () =>
    call("analyst", "POST", "dead-letters/[id]/notes", `/api/dead-letters/${id}/notes`, { id }, { text: "looked at it" }),
  "POST /api/dead-letters/[id]/actions": async () =>
    call(
      "analyst",
      "POST",
      "dead-letters/[id]/actions",
      `/api/dead-letters/${id}/actions`,
      { id },
      { action: "quarantine", reason: "heavy", version: await version() },
    ),
  "GET /api/replays": () => call("supervisor", "GET", "replays", "/api/replays", {}),
  "GET /api/dead-letters": () => call("analyst", "GET", "dead-letters", `/api/dead-letters?q=${key}`, {}),
  "GET /api/export?format=ndjson": () => call("analyst", "GET", "export", `/api/export?format=ndjson&q=${key}`, {}),
  "GET /api/export?format=csv": () => call("analyst", "GET", "export", `/api/export?format=csv&q=${key}`, {}),
  "GET /api/export?format=geojson": () => call("analyst", "GET", "export", `/api/export?format=geojson&q=${key}`, {}),
  "POST /api/dead-letters/bulk": () =>
    call("analyst", "POST", "dead-letters/bulk", "/api/dead-letters/bulk", {}, { action: "quarantine", reason: "heavy", ids: [id] }),
  "POST /api/replays": () =>
    call("supervisor", "POST", "replays", "/api/replays", {}, { ids: [id], sink: { type: "ledger" }, ratePerSecond: 10 }),
  "POST /api/quarantine/release": () =>
    call("supervisor", "POST", "quarantine/release", "/api/quarantine/release", {}, { ids: [id], reason: "heavy" }),
  "POST /api/quarantine/purge": async () => {
    await call("analyst", "POST", "dead-letters/bulk", "/api/dead-letters/bulk", {}, { action: "quarantine", reason: "heavy", ids: [id] });
    return call("supervisor", "POST", "quarantine/purge", "/api/quarantine/purge", {}, { ids: [id], reason: "heavy" });
  },
};

/** The route a probe calls ("GET /api/export?format=csv": "GET /api/export"). */
const routeOf = (probe: string) => probe.replace(/\?.*$/, "");

/** The status each probe must answer: the request is a real one, not refused before it reads anything. */
const EXPECTED_STATUS: Record<string, number[]> = {
  "POST /api/dead-letters/[id]/notes": [201],
  "POST /api/dead-letters/bulk": [200, 202],
  // A poison record is not replayable: the batch is refused after its records were read and checked.
  "POST /api/replays": [201, 409, 422],
};

/** Routes that reach a payload reader but are covered elsewhere or never read a stored record, and why. */
const EXCUSED = new Map([
  ["POST /api/dead-letters", "ingest: heavy-input.test.ts sends the 1e6-vertex record itself while probing health"],
  ["POST /api/afc/taps", "ingest of taps (small by schema); normalization runs on the ingest threads as for POST /api/dead-letters"],
  ["GET /api/dead-letters/bulk/[jobId]", "polls a bulk job, which runs the same pages as POST /api/dead-letters/bulk (probed)"],
  ["POST /api/dead-letters/bulk/[jobId]/cancel", "cancels a bulk job: reads no record"],
  ["GET /api/sources", "lists sources: reads no record (pulling is the workers' and POST …/pull's)"],
  ["POST /api/sources", "adds a source and tests the broker: reads no record"],
  ["GET /api/sources/[name]", "one source: reads no record"],
  ["PATCH /api/sources/[name]", "changes a source: reads no record"],
  ["DELETE /api/sources/[name]", "removes a source: reads no record"],
  ["GET /api/sources/[name]/status", "a source's state: reads no record"],
  ["POST /api/sources/[name]/pull", "pulls from a broker: ingest (normalized on the ingest threads), tests/integration/sources"],
  ["GET /api/openapi.json", "imports every route module to describe it; runs none of them"],
  [
    "GET /api/replays/[id]",
    "reaches the sink registry (lib/replay/sinks/registry.server.ts) for the batch's sink view; payloads are sent by the replay worker, never read here",
  ],
  [
    "GET /api/replays/[id]/items",
    "reaches the sink registry (lib/replay/sinks/registry.server.ts) for the batch's sink view; payloads are sent by the replay worker, never read here",
  ],
  [
    "GET /api/replays/[id]/rate",
    "reaches the sink registry (lib/replay/sinks/registry.server.ts) for the batch's sink view; payloads are sent by the replay worker, never read here",
  ],
  [
    "POST /api/replays/[id]/approve",
    "reaches the sink registry (lib/replay/sinks/registry.server.ts) for the batch's sink view; payloads are sent by the replay worker, never read here",
  ],
  [
    "POST /api/replays/[id]/cancel",
    "reaches the sink registry (lib/replay/sinks/registry.server.ts) for the batch's sink view; payloads are sent by the replay worker, never read here",
  ],
  [
    "POST /api/replays/[id]/pause",
    "reaches the sink registry (lib/replay/sinks/registry.server.ts) for the batch's sink view; payloads are sent by the replay worker, never read here",
  ],
  [
    "POST /api/replays/[id]/resume",
    "reaches the sink registry (lib/replay/sinks/registry.server.ts) for the batch's sink view; payloads are sent by the replay worker, never read here",
  ],
  [
    "POST /api/replays/[id]/start",
    "reaches the sink registry (lib/replay/sinks/registry.server.ts) for the batch's sink view; payloads are sent by the replay worker, never read here",
  ],
  [
    "GET /api/rules",
    "rules: judges pending records only (this poison record never); another repair runs on the ingest threads (otherRepairsOffThread); tests/integration/rules.test.ts, rule-arrival.test.ts",
  ],
  [
    "GET /api/rules/[id]",
    "rules: judges pending records only (this poison record never); another repair runs on the ingest threads (otherRepairsOffThread); tests/integration/rules.test.ts, rule-arrival.test.ts",
  ],
  [
    "GET /api/rules/[id]/jobs/[jobId]",
    "rules: judges pending records only (this poison record never); another repair runs on the ingest threads (otherRepairsOffThread); tests/integration/rules.test.ts, rule-arrival.test.ts",
  ],
  [
    "PATCH /api/rules/[id]",
    "rules: judges pending records only (this poison record never); another repair runs on the ingest threads (otherRepairsOffThread); tests/integration/rules.test.ts, rule-arrival.test.ts",
  ],
  [
    "POST /api/rules",
    "rules: judges pending records only (this poison record never); another repair runs on the ingest threads (otherRepairsOffThread); tests/integration/rules.test.ts, rule-arrival.test.ts",
  ],
  [
    "POST /api/rules/[id]/apply",
    "rules: judges pending records only (this poison record never); another repair runs on the ingest threads (otherRepairsOffThread); tests/integration/rules.test.ts, rule-arrival.test.ts",
  ],
  [
    "POST /api/rules/[id]/approve",
    "rules: judges pending records only (this poison record never); another repair runs on the ingest threads (otherRepairsOffThread); tests/integration/rules.test.ts, rule-arrival.test.ts",
  ],
  [
    "POST /api/rules/[id]/resume",
    "rules: resumes the rule's standing replay batch; payloads are sent by the replay worker, never read here",
  ],
  [
    "POST /api/rules/[id]/dry-run",
    "rules: judges pending records only (this poison record never); another repair runs on the ingest threads (otherRepairsOffThread); tests/integration/rules.test.ts, rule-arrival.test.ts",
  ],
]);

describe("routes that read a stored payload", () => {
  beforeAll(async () => {
    // heavy-1m, as the first test stored it (1e6 vertices, kept whole as poison), with a card number to reveal.
    id = (await db.pool.query<{ id: string }>("SELECT id::text AS id FROM dead_letter WHERE idempotency_key = $1", [key])).rows[0]!.id;
    for (const role of ["analyst", "auditor", "supervisor"] as const) {
      tokens.set(role, await makeToken(getDb(), (await makeUser(getDb(), role)).id));
    }
    // Loaded before the probes, as a server has them (loading them while probing would measure this test's loader).
    for (const r of Object.keys(PROBES))
      await import(
        join(
          root,
          "app/api",
          routeOf(r)
            .split(" ")[1]!
            .replace(/^\/api\//, ""),
          "route.ts",
        )
      );
  });
  it("lists every such route: each is probed below or excused with its reason", () => {
    const found = heavyRoutes();
    expect(found).toContain("GET /api/dead-letters/[id]/repair-preview");
    const covered = new Set([...Object.keys(PROBES).map(routeOf), ...EXCUSED.keys()]);
    expect(found.filter((r) => !covered.has(r))).toEqual([]);
    // and nothing listed here that is not (any more) such a route
    expect([...covered].filter((r) => !found.includes(r))).toEqual([]);
  });

  it.each(Object.keys(PROBES))(
    "%s keeps health answering within 200 ms on a 1e6-vertex record",
    async (route) => {
      const run = await whileProbingHealth(PROBES[route]!);
      console.log(report(`${route}: ${run.value.status}, ${run.value.bytes} bytes`, run));
      expect(EXPECTED_STATUS[route] ?? [200]).toContain(run.value.status);
      // an export holds the record itself: its 12 MB went out, not an empty file
      if (routeOf(route) === "GET /api/export") expect(run.value.bytes).toBeGreaterThan(10_000_000);
      expectResponsive(run, 1);
    },
    180_000,
  );
});
