import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTE_MODULES } from "../../app/api/route-modules.generated";
import type { RouteMeta } from "../../lib/api/handler";
import { readRecordScope } from "../../lib/auth/teams/read-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { createBulkJob } from "../../lib/dead-letters/triage/bulk-jobs";
import { evaluateAlerts } from "../../lib/ops/alerts/evaluate";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Teams (issue 45): a user of team A asks every API operation for team B's records by every identifier — id,
// idempotency key, event hash, device, feature id, place, group, filter, note, export, bulk job, replay batch,
// saved view — and finds nothing: 404 for one record, lists and counts without them. Every operation is read from
// the generated route list (app/api/route-modules.generated.ts, the one OpenAPI reads): one this file does not
// probe, or name as holding no records, fails the first test, so a new route must be classified here.

setTestAuthEnv();

type Handler = ((req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>) & {
  meta?: RouteMeta;
};

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

let db: Db;
const tokens: Record<"admin" | "supA" | "anaA" | "audA" | "supB" | "supB2" | "anaB" | "supAB" | "supAll", string> = {
  admin: "",
  supAB: "",
  supAll: "",
  supA: "",
  anaA: "",
  audA: "",
  supB: "",
  supB2: "",
  anaB: "",
};
let anaAHandle = "";
/** every user's id, by the same names as tokens */
const userIds: Partial<Record<keyof typeof tokens, string>> = {};
/** team B's identifiers, and the values that must never reach a team A answer */
const b = {
  spatialId: "",
  tapId: "",
  quarantinedId: "",
  hash: "",
  groupId: "",
  batchId: "",
  /** the standing batch of a team B rule's standing replay: opened empty, so no record of B's places it */
  standingBatchId: "",
  jobId: "",
  viewId: "",
  note: "",
  ruleId: "",
  ruleJobId: "",
  teamId: "",
  alertId: "team-b-backlog",
};
/**
 * Team A's rule, and dry runs of it with a draft match of their own (a job keeps its match): one of A's source, one
 * of B's (by a supervisor in both teams), one of every team's (by a supervisor in none).
 */
const aRule = { id: "", ownJob: "", bJob: "", wideJob: "" };
/** each team's broker source; B's name holds no marker (a 404 may echo the name asked for), so it is checked by name */
const A_BROKER = "a-broker";
const B_BROKER = "gates-broker-2";
/** team A's own alert rule: its members see it whole */
const aAlertId = "team-a-backlog";
let aIds: string[] = [];

function handler(dir: string, method: string): Handler {
  const mod = ROUTE_MODULES.find((r) => r.dir === dir)?.module;
  const h = mod?.[method] as Handler | undefined;
  if (!h) throw new Error(`${method} ${dir}: no such handler`);
  return h;
}

async function call(
  token: string,
  method: string,
  dir: string,
  opts: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; text: string; json: () => unknown }> {
  const path = dir.replace(/\[(\w+)\]/g, (_, p: string) => opts.params?.[p] ?? "1");
  const qs = opts.query ? `?${new URLSearchParams(opts.query).toString()}` : "";
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await handler(dir, method)(
    new Request(`http://localhost/api/${path}${qs}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    { params: Promise.resolve(opts.params ?? {}) },
  );
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as unknown };
}

/**
 * What team B's records would show of themselves in an answer. The facet counts echo a source the reader filtered
 * on (with count 0): their own words, not a record's, so that echo is left out.
 */
function leaks(answer: string): string[] {
  const text = answer.replaceAll('{"value":"team-b-parcels","count":0}', "");
  const found: string[] = [];
  for (const marker of ["team-b", "tb-key", "tb-dev", "tb-tap", "tb-feat", b.note, b.hash].filter(Boolean))
    if (text.includes(marker)) found.push(marker);
  for (const id of [b.spatialId, b.tapId, b.quarantinedId])
    if (new RegExp(`"(id|deadLetterId|dead_letter_id)":"${id}"`).test(text)) found.push(`record ${id}`);
  return found;
}

async function expectNothing(r: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const { status, text } = await r;
  expect(status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(leaks(text), `${what} answered ${text.slice(0, 300)}`).toEqual([]);
}

async function expect404(r: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const { status, text } = await r;
  expect(status, `${what}: ${text.slice(0, 300)}`).toBe(404);
  expect(leaks(text), what).toEqual([]);
}

const square = (x: number, y: number) => [
  [
    [x, y],
    [x + 0.01, y],
    [x + 0.01, y + 0.01],
    [x, y + 0.01],
    [x, y],
  ],
];
const spatial = (source: string, key: string, x: number, reason: string) => ({
  kind: "spatial",
  source,
  idempotency_key: key,
  observed_at: "2026-12-01T00:00:00Z",
  feature: {
    type: "Feature",
    id: key.replace("key", "feat"),
    geometry: { type: "Polygon", coordinates: square(x, 48.85) },
    properties: {},
  },
  dead_letter_reason: reason,
});
const tap = (source: string, prefix: string) => ({
  kind: "afc",
  source,
  raw_payload: {
    event_id: `${prefix}-tap-1`,
    device_id: `${prefix}-dev-1`,
    fare_amount_cents: "250",
    tap_timestamp: "2026-12-01T08:00:00Z",
  },
  failure_reason: "HTTP 503 from fares service",
  retry_count: 1,
});

async function ingest(records: unknown[]): Promise<string[]> {
  const res = await call(tokens.admin, "POST", "dead-letters", { body: records });
  expect(res.status, res.text).toBe(200);
  const results = (res.json() as { results: { status: string; id?: string }[] }).results;
  return results.map((r) => {
    expect(r.status).toBe("created");
    return r.id!;
  });
}

async function decide(token: string, id: string, body: Record<string, unknown>): Promise<void> {
  const detail = (await call(token, "GET", "dead-letters/[id]", { params: { id } })).json() as { version: number };
  const res = await call(token, "POST", "dead-letters/[id]/actions", { params: { id }, body: { ...body, version: detail.version } });
  expect(res.status, res.text).toBe(200);
}

beforeAll(async () => {
  db = await testDb();
  // Record ids far from every other id the answers carry (rules, jobs, batches): leaks() finds a record by its id.
  await db.pool.query("SELECT setval(pg_get_serial_sequence('dead_letter', 'id'), 900000)");
  const [admin, supA, anaA, audA, supB, supB2, anaB, supAB, supAll] = await Promise.all([
    makeUser(db, "admin"),
    makeUser(db, "supervisor"),
    makeUser(db, "analyst", { email: `ana-a-${Date.now()}@test.local` }),
    makeUser(db, "auditor"),
    makeUser(db, "supervisor"),
    makeUser(db, "supervisor"),
    makeUser(db, "analyst"),
    makeUser(db, "supervisor"),
    makeUser(db, "supervisor"),
  ]);
  anaAHandle = anaA.email.split("@")[0]!;
  const users = { admin, supA, anaA, audA, supB, supB2, anaB, supAB, supAll };
  for (const [k, u] of Object.entries(users)) userIds[k as keyof typeof tokens] = u.id;
  for (const [k, u] of Object.entries(users)) tokens[k as keyof typeof tokens] = await makeToken(db, u.id);

  const teamA = await call(tokens.admin, "POST", "teams", {
    body: {
      name: "A",
      members: [supA, anaA, audA, supAB].map((u) => ({ userId: u.id })),
      sources: [{ source: "team-a*" }, { origin: A_BROKER }],
    },
  });
  expect(teamA.status, teamA.text).toBe(201);
  const teamB = await call(tokens.admin, "POST", "teams", {
    body: {
      name: "B",
      members: [supB, supB2, anaB, supAB].map((u) => ({ userId: u.id })),
      sources: [{ source: "team-b-parcels" }, { source: "team-b-gates" }],
    },
  });
  expect(teamB.status, teamB.text).toBe(201);
  b.teamId = (teamB.json() as { id: string }).id;

  // A broker source for each team, with counts (B's claimed by no one in A).
  for (const name of [A_BROKER, B_BROKER])
    await db.pool.query(
      "INSERT INTO source (name, type, url_sealed, kind, pulled_total, created_total) VALUES ($1, 'rabbitmq', 'unused', 'afc', 42, 40)",
      [name],
    );

  // Both teams' records in the same place, with the same kinds of identifiers.
  aIds = await ingest([spatial("team-a-parcels", "ta-key-1", 2.35, "topology: ring self-intersection"), tap("team-a-gates", "ta")]);
  const [bSpatial, bTap, bQuarantined] = await ingest([
    spatial("team-b-parcels", "tb-key-1", 2.35, "topology: ring self-intersection"),
    tap("team-b-gates", "tb"),
    spatial("team-b-parcels", "tb-key-q", 2.351, "HTTP 500 from parcels API"),
  ]);
  Object.assign(b, { spatialId: bSpatial!, tapId: bTap!, quarantinedId: bQuarantined! });
  const { rows } = await db.pool.query<{ key: string }>("SELECT idempotency_key AS key FROM dead_letter WHERE id = $1", [b.tapId]);
  b.hash = rows[0]!.key; // a tap's key is its event hash

  // Team B at work: an approval, a quarantine, a note mentioning A's analyst, a shared view, a batch, a bulk job.
  await decide(tokens.supB, b.spatialId, { action: "approve" });
  await decide(tokens.supB, b.quarantinedId, { action: "quarantine", reason: "team b holds this one" });
  b.note = "tb-note only team b reads";
  const note = await call(tokens.anaB, "POST", "dead-letters/[id]/notes", {
    params: { id: b.spatialId },
    body: { text: `${b.note} @${anaAHandle}` },
  });
  expect(note.status, note.text).toBeLessThan(300);
  const view = await call(tokens.anaB, "POST", "views", { body: { name: "team-b view", shared: true, filter: "source=team-b-parcels" } });
  expect(view.status, view.text).toBeLessThan(300);
  b.viewId = (view.json() as { id: string }).id;
  const batch = await call(tokens.supB, "POST", "replays", { body: { ids: [b.spatialId], sink: { type: "ledger" }, ratePerSecond: 10 } });
  expect(batch.status, batch.text).toBe(201);
  b.batchId = (batch.json() as { id: string }).id;
  // A bulk job by filter, started by B's analyst (the route runs it after answering, outside a test's reach).
  const job = await createBulkJob(
    db.pool,
    { action: "reopen", reason: "team b looks again", filter: { source: ["team-b-gates"] } },
    {
      actor: { id: anaB.id, email: anaB.email, role: "analyst" },
      scope: await readRecordScope(db.pool, anaB.id),
      requestId: "t",
      now: new Date(),
    },
  );
  b.jobId = job.id;
  const groups = (await call(tokens.anaB, "GET", "groups")).json() as { groups: { id: string; source: string }[] };
  b.groupId = groups.groups.find((g) => g.source === "team-b-parcels")!.id;
  // A triage rule of team B's source, drafted and approved by B's supervisors, with a dry run of its own.
  const rule = await call(tokens.supB, "POST", "rules", {
    body: { name: "team-b-rule", match: { source: "team-b-parcels" }, action: { type: "leave" } },
  });
  expect(rule.status, rule.text).toBe(201);
  b.ruleId = (rule.json() as { id: string }).id;
  const approved = await call(tokens.supB2, "POST", "rules/[id]/approve", { params: { id: b.ruleId }, body: { version: 1 } });
  expect(approved.status, approved.text).toBe(200);
  const dry = await call(tokens.supB, "POST", "rules/[id]/dry-run", { params: { id: b.ruleId }, body: {} });
  expect(dry.status, dry.text).toBeLessThan(300);
  b.ruleJobId = (dry.json() as { job: { id: string } }).job.id;
  const standing = await call(tokens.supB, "POST", "rules", {
    body: {
      name: "team-b-standing",
      match: { source: "team-b-parcels", class: "transient" },
      action: { type: "approve" },
      replay: { sink: { type: "ledger" }, ratePerSecond: 5 },
    },
  });
  expect(standing.status, standing.text).toBe(201);
  const standingId = (standing.json() as { id: string }).id;
  const opened = await call(tokens.supB2, "POST", "rules/[id]/approve", { params: { id: standingId }, body: { version: 1 } });
  expect(opened.status, opened.text).toBe(200);
  const batches = (await call(tokens.supB, "GET", "replays")).json() as { batches: { id: string; rule: { id: string } | null }[] };
  b.standingBatchId = batches.batches.find((x) => x.rule?.id === standingId)!.id;
  const ruleA = await call(tokens.supA, "POST", "rules", {
    body: { name: "team-a-rule", match: { source: "team-a-parcels" }, action: { type: "leave" } },
  });
  expect(ruleA.status, ruleA.text).toBe(201);
  aRule.id = (ruleA.json() as { id: string }).id;
  const dryA = async (token: string, match: Record<string, unknown>) => {
    const r = await call(token, "POST", "rules/[id]/dry-run", { params: { id: aRule.id }, body: { match } });
    expect(r.status, r.text).toBeLessThan(300);
    return (r.json() as { job: { id: string } }).job.id;
  };
  aRule.ownJob = await dryA(tokens.supA, { source: "team-a-parcels" });
  aRule.bJob = await dryA(tokens.supAB, { source: "team-b-parcels" });
  aRule.wideJob = await dryA(tokens.supAll, { kind: "spatial" });
  // Each team's supervisor copies the backlog alert for their team (A's in one team: no teamId needed); both fire.
  for (const [token, id, teamId] of [
    [tokens.supB, b.alertId, b.teamId],
    [tokens.supA, aAlertId, undefined],
  ] as const) {
    const alert = await call(token, "POST", "alerts", { body: { id, teamId, name: `${id} alert`, metric: "dlq_size", threshold: 0 } });
    expect(alert.status, alert.text).toBe(201);
  }
  const evaluation = await evaluateAlerts(db.pool, new Date());
  expect(evaluation.fired.map((f) => f.ruleId).sort()).toEqual([aAlertId, b.alertId]);
}, 120_000);

afterAll(async () => {
  await db?.pool.end();
  await closeDb();
});

type Probe = () => Promise<void>;
const recordIds = () => [b.spatialId, b.tapId, b.quarantinedId];
const asA = (token: keyof typeof tokens) => tokens[token];

/** Every identifier team A might try for team B's records, as list filters. */
const filters = (): Record<string, string>[] => [
  {},
  { source: "team-b-parcels" },
  { q: "tb-key-1" },
  { q: "tb-dev-1" },
  { q: "tb-tap-1" },
  { q: "tb-feat-1" },
  { q: b.hash },
  { q: b.hash.slice(0, 10) },
  { q: "device_id:tb-dev-1" },
  { note: "tb-note" },
  { bbox: "2.3,48.8,2.4,48.9" },
  { status: "approved" },
];

/** Each operation with a probe, or the reason it holds no team records (a string). */
const PROBES: Record<string, Probe | string> = {
  "GET dead-letters": async () => {
    for (const f of filters()) await expectNothing(call(asA("anaA"), "GET", "dead-letters", { query: f }), `list ${JSON.stringify(f)}`);
    const all = (await call(asA("anaA"), "GET", "dead-letters")).json() as { items: { id: string }[] };
    expect(all.items.map((i) => i.id).sort()).toEqual([...aIds].sort()); // the seam does not hide the team's own
  },
  "GET dead-letters/[id]": async () => {
    for (const id of recordIds()) await expect404(call(asA("anaA"), "GET", "dead-letters/[id]", { params: { id } }), `detail ${id}`);
  },
  "POST dead-letters/[id]/actions": async () => {
    for (const id of recordIds())
      await expect404(
        call(asA("supA"), "POST", "dead-letters/[id]/actions", { params: { id }, body: { action: "reopen", version: 1, reason: "x" } }),
        `action ${id}`,
      );
  },
  "GET dead-letters/[id]/notes": async () => {
    for (const id of recordIds()) await expect404(call(asA("anaA"), "GET", "dead-letters/[id]/notes", { params: { id } }), `notes ${id}`);
  },
  "POST dead-letters/[id]/notes": async () => {
    await expect404(
      call(asA("anaA"), "POST", "dead-letters/[id]/notes", { params: { id: b.spatialId }, body: { text: "hello" } }),
      "add note",
    );
  },
  "GET dead-letters/[id]/repair-preview": async () => {
    await expect404(call(asA("anaA"), "GET", "dead-letters/[id]/repair-preview", { params: { id: b.spatialId } }), "repair preview");
  },
  "POST dead-letters/[id]/reveal": async () => {
    await expect404(
      call(asA("audA"), "POST", "dead-letters/[id]/reveal", { params: { id: b.tapId }, body: { path: "/payload/device_id" } }),
      "reveal",
    );
  },
  "GET dead-letters/[id]/timeline": async () => {
    for (const id of recordIds())
      await expect404(call(asA("audA"), "GET", "dead-letters/[id]/timeline", { params: { id } }), `timeline ${id}`);
  },
  "GET dead-letters/arrivals": async () => {
    const r = await call(asA("anaA"), "GET", "dead-letters/arrivals", { query: { after: "0" } });
    await expectNothing(Promise.resolve(r), "arrivals");
    expect((r.json() as { count: number }).count).toBe(aIds.length);
    await expectNothing(
      call(asA("anaA"), "GET", "dead-letters/arrivals", { query: { after: "0", source: "team-b-parcels" } }),
      "arrivals b",
    );
  },
  "POST dead-letters/bulk": async () => {
    const byIds = await call(asA("supA"), "POST", "dead-letters/bulk", { body: { action: "reopen", reason: "x", ids: recordIds() } });
    await expectNothing(Promise.resolve(byIds), "bulk by ids");
    expect((byIds.json() as { updated: number }).updated).toBe(0);
    const byFilter = await call(asA("supA"), "POST", "dead-letters/bulk", {
      body: { action: "reopen", reason: "x", filter: { source: ["team-b-gates"] }, dryRun: true },
    });
    expect((byFilter.json() as { matched: number }).matched).toBe(0);
  },
  "GET dead-letters/bulk/[jobId]": async () => {
    await expect404(call(asA("anaA"), "GET", "dead-letters/bulk/[jobId]", { params: { jobId: b.jobId } }), "bulk job");
  },
  "POST dead-letters/bulk/[jobId]/cancel": async () => {
    await expect404(call(asA("supA"), "POST", "dead-letters/bulk/[jobId]/cancel", { params: { jobId: b.jobId } }), "cancel job");
  },
  "GET dead-letters/extent": async () => {
    for (const f of filters())
      await expectNothing(call(asA("anaA"), "GET", "dead-letters/extent", { query: f }), `extent ${JSON.stringify(f)}`);
    const r = (await call(asA("anaA"), "GET", "dead-letters/extent", { query: { source: "team-b-parcels" } })).json() as { count?: number };
    expect(r.count ?? 0).toBe(0);
  },
  "GET dead-letters/facets": async () => {
    for (const f of filters())
      await expectNothing(call(asA("anaA"), "GET", "dead-letters/facets", { query: f }), `facets ${JSON.stringify(f)}`);
    expect(((await call(asA("anaA"), "GET", "dead-letters/facets")).json() as { total: number }).total).toBe(aIds.length);
  },
  "GET dead-letters/map-points": async () => {
    for (const f of filters())
      await expectNothing(call(asA("anaA"), "GET", "dead-letters/map-points", { query: { ...f, zoom: "12" } }), `map ${JSON.stringify(f)}`);
  },
  "GET export": async () => {
    for (const format of ["ndjson", "csv", "geojson"])
      await expectNothing(call(asA("anaA"), "GET", "export", { query: { format } }), `export ${format}`);
    await expectNothing(call(asA("anaA"), "GET", "export", { query: { format: "ndjson", q: "tb-key-1" } }), "export by key");
  },
  "GET groups": async () => {
    await expectNothing(call(asA("anaA"), "GET", "groups"), "groups");
    await expectNothing(call(asA("anaA"), "GET", "groups", { query: { source: "team-b-parcels" } }), "groups of b's source");
  },
  "GET groups/[id]": async () => {
    await expect404(call(asA("anaA"), "GET", "groups/[id]", { params: { id: b.groupId } }), "group");
  },
  "PATCH groups/[id]": async () => {
    await expect404(call(asA("supA"), "PATCH", "groups/[id]", { params: { id: b.groupId }, body: { status: "ignored" } }), "patch group");
    // Nor is one of A's groups handed to B's analyst, who could not open it; A's own analyst may own it.
    const groups = (await call(asA("anaA"), "GET", "groups")).json() as { groups: { id: string; source: string }[] };
    const own = groups.groups.find((g) => g.source === "team-a-parcels")!.id;
    const toB = await call(asA("supA"), "PATCH", "groups/[id]", { params: { id: own }, body: { owner: userIds.anaB } });
    expect(toB.status, toB.text).toBe(422);
    expect(toB.text).toContain("cannot open this group");
    const toA = await call(asA("supA"), "PATCH", "groups/[id]", { params: { id: own }, body: { owner: userIds.anaA } });
    expect(toA.status, toA.text).toBe(200);
    const { assignableOwners } = await import("../../lib/dead-letters/groups/read-groups");
    const owners = (await assignableOwners(db.pool, own, new Date())).map((o) => o.id);
    expect(owners).toContain(userIds.anaA);
    expect(owners).toContain(userIds.supAll); // in no team: every group
    expect(owners).not.toContain(userIds.anaB);
    expect(owners).not.toContain(userIds.supB);
  },
  "GET lookup": async () => {
    for (const q of ["tb-key-1", "tb-dev-1", "tb-tap-1", "tb-feat-1", b.hash, b.hash.slice(0, 12)])
      await expectNothing(call(asA("anaA"), "GET", "lookup", { query: { q } }), `lookup ${q}`);
    await expectNothing(call(asA("anaA"), "GET", "lookup", { query: { near: "2.355,48.855", radiusKm: "5" } }), "lookup near");
    await expectNothing(call(asA("anaA"), "GET", "lookup", { query: { bbox: "2.3,48.8,2.4,48.9" } }), "lookup in a box");
  },
  "GET metrics": async () => {
    const r = await call(asA("anaA"), "GET", "metrics");
    await expectNothing(Promise.resolve(r), "metrics");
    const total = [...r.text.matchAll(/^redrive_dead_letters\{[^}]*\} (\d+)/gm)].reduce((s, m) => s + Number(m[1]), 0);
    expect(total).toBe(aIds.length);
    expect(r.text).toContain(`redrive_alert_firing{rule="${aAlertId}",team="A"} 1`);
    expect(r.text).not.toMatch(/redrive_alert_firing\{rule="(dlq-size|poison-growth|oldest-age)"/);
  },
  "GET notes/mentions": async () => {
    await expectNothing(call(asA("anaA"), "GET", "notes/mentions"), "mentions");
  },
  "GET overview": async () => {
    const r = await call(asA("anaA"), "GET", "overview");
    await expectNothing(Promise.resolve(r), "overview");
    const shown = (r.json() as { replays: { id: string }[] }).replays.map((x) => x.id);
    expect(shown).not.toContain(b.batchId);
    expect(shown).not.toContain(b.standingBatchId);
    const o = r.json() as { total?: number; unresolved?: number };
    if (o.total !== undefined) expect(o.total).toBe(aIds.length);
  },
  "GET quarantine/groups": async () => {
    await expectNothing(call(asA("anaA"), "GET", "quarantine/groups"), "quarantine groups");
  },
  "POST quarantine/purge": async () => {
    const r = await call(asA("supA"), "POST", "quarantine/purge", { body: { ids: [b.quarantinedId], reason: "x" } });
    await expectNothing(Promise.resolve(r), "purge by id");
    expect((r.json() as { purged?: number }).purged ?? 0).toBe(0);
    const f = await call(asA("supA"), "POST", "quarantine/purge", { body: { filter: { source: ["team-b-parcels"] }, reason: "x" } });
    expect((f.json() as { purged?: number }).purged ?? 0).toBe(0);
  },
  "POST quarantine/release": async () => {
    const r = await call(asA("supA"), "POST", "quarantine/release", { body: { ids: [b.quarantinedId], reason: "x" } });
    await expectNothing(Promise.resolve(r), "release by id");
    expect((r.json() as { released?: number }).released ?? 0).toBe(0);
  },
  "GET replays": async () => {
    const r = await call(asA("anaA"), "GET", "replays");
    await expectNothing(Promise.resolve(r), "replays");
    const shown = (r.json() as { batches: { id: string }[] }).batches.map((x) => x.id);
    expect(shown).not.toContain(b.batchId);
    expect(shown).not.toContain(b.standingBatchId);
  },
  "POST replays": async () => {
    const byIds = await call(asA("supA"), "POST", "replays", { body: { ids: [b.spatialId], sink: { type: "ledger" }, ratePerSecond: 1 } });
    expect(byIds.status).toBe(422);
    expect(byIds.text).toContain("no such record");
    const byFilter = await call(asA("supA"), "POST", "replays", {
      body: { filter: { source: ["team-b-parcels"] }, sink: { type: "ledger" }, ratePerSecond: 1 },
    });
    expect(byFilter.status).toBe(422);
    await expectNothing(Promise.resolve(byFilter), "batch by filter");
  },
  "GET replays/[id]": async () => {
    for (const id of [b.batchId, b.standingBatchId])
      await expect404(call(asA("anaA"), "GET", "replays/[id]", { params: { id } }), `batch ${id}`);
  },
  "GET replays/[id]/items": async () => {
    for (const id of [b.batchId, b.standingBatchId])
      await expect404(call(asA("anaA"), "GET", "replays/[id]/items", { params: { id } }), `batch items ${id}`);
  },
  "GET replays/[id]/rate": async () => {
    for (const id of [b.batchId, b.standingBatchId])
      await expect404(call(asA("anaA"), "GET", "replays/[id]/rate", { params: { id } }), `batch rate ${id}`);
  },
  ...Object.fromEntries(
    ["approve", "cancel", "pause", "resume", "start"].map((action) => [
      `POST replays/[id]/${action}`,
      async () => {
        for (const id of [b.batchId, b.standingBatchId])
          await expect404(call(asA("supA"), "POST", `replays/[id]/${action}`, { params: { id }, body: {} }), `batch ${id} ${action}`);
      },
    ]),
  ),
  "GET views": async () => {
    const r = await call(asA("anaA"), "GET", "views", { query: { counts: "1" } });
    await expectNothing(Promise.resolve(r), "views");
    expect(r.text).not.toContain("team-b view");
  },
  "PATCH views/[id]": async () => {
    await expect404(call(asA("anaA"), "PATCH", "views/[id]", { params: { id: b.viewId }, body: { name: "mine" } }), "patch view");
  },
  "DELETE views/[id]": async () => {
    await expect404(call(asA("anaA"), "DELETE", "views/[id]", { params: { id: b.viewId } }), "delete view");
  },
  "PUT views/default": async () => {
    await expect404(call(asA("anaA"), "PUT", "views/default", { body: { viewId: b.viewId } }), "default view");
  },
  "POST views": "creates the caller's own view (a filter text); its counts are read through GET views, probed above",
  "GET audit": async () => {
    const r = await call(asA("audA"), "GET", "audit", { query: { limit: "200" } });
    await expectNothing(Promise.resolve(r), "audit log");
    // their own team's alert rule: its creation and its firing
    const own = await call(asA("audA"), "GET", "audit", { query: { targetType: "alert_rule", targetId: aAlertId } });
    expect((own.json() as { events: { action: string }[] }).events.map((e) => e.action).sort()).toEqual([
      "alert.fired",
      "alert_rule.created",
    ]);
    for (const id of recordIds())
      await expectNothing(call(asA("audA"), "GET", "audit", { query: { targetType: "dead_letter", targetId: id } }), `audit of ${id}`);
    for (const id of [b.batchId, b.standingBatchId])
      await expectNothing(
        call(asA("audA"), "GET", "audit", { query: { targetType: "replay_batch", targetId: id } }),
        `audit of batch ${id}`,
      );
  },
  "GET alerts": async () => {
    const r = await call(asA("anaA"), "GET", "alerts");
    await expectNothing(Promise.resolve(r), "alerts");
    const { rules, events } = r.json() as {
      rules: { id: string; teamId: string | null; lastValue: number | null; firing: unknown }[];
      events: { ruleId: string }[];
    };
    expect(rules.map((x) => x.id)).not.toContain(b.alertId);
    // company-wide rules count every team's records: their values and events are not a team's to see
    for (const rule of rules.filter((x) => x.teamId === null)) expect([rule.lastValue, rule.firing]).toEqual([null, null]);
    const own = rules.find((x) => x.id === aAlertId);
    expect([own?.lastValue, own?.firing === null]).toEqual([aIds.length, false]);
    expect(new Set(events.map((e) => e.ruleId))).toEqual(new Set([aAlertId]));
  },
  "POST alerts": async () => {
    for (const teamId of [b.teamId, null]) {
      const r = await call(asA("supA"), "POST", "alerts", { body: { teamId, name: "reach into b", metric: "dlq_size", threshold: 1 } });
      expect(r.status, r.text).toBe(422);
      expect(r.text).toContain("teamId");
    }
  },
  "PATCH alerts/[id]": async () => {
    await expect404(call(asA("supA"), "PATCH", "alerts/[id]", { params: { id: b.alertId }, body: { threshold: 5 } }), "patch alert");
    const wide = await call(asA("supA"), "PATCH", "alerts/[id]", { params: { id: "dlq-size" }, body: { threshold: 5 } });
    expect(wide.status, wide.text).toBe(403); // company-wide: shown to A (without values), changed by supervisors in no team
  },
  "DELETE alerts/[id]": async () => {
    await expect404(call(asA("supA"), "DELETE", "alerts/[id]", { params: { id: b.alertId } }), "delete alert");
  },
  "POST dead-letters": "ingest writes records; a re-sent key answers without another sender's record id (producer-isolation.test.ts)",
  "POST afc/taps": "tap capture writes records; as POST /api/dead-letters",
  "GET producer/records": "a producer's own records only (producer-isolation.test.ts); producers are not scoped by teams",
  "GET producer/records/[id]": "as GET producer/records",
  "GET [...path]": "the API's catch-all 404",
  "POST [...path]": "the API's catch-all 404",
  "PUT [...path]": "the API's catch-all 404",
  "PATCH [...path]": "the API's catch-all 404",
  "DELETE [...path]": "the API's catch-all 404",
  "GET auth/[...all]": "sign-in (better-auth): no record",
  "POST auth/[...all]": "sign-in (better-auth): no record",
  "GET health": "service health: no record",
  "GET health/live": "service health: no record",
  "GET health/ready": "service health: no record",
  "GET openapi.json": "the API's description: no record",
  "GET settings/replay-approval": "a company-wide setting: no record",
  "PUT settings/replay-approval": "a company-wide setting (admins): no record",
  "GET settings/archive": "a company-wide setting (admins): no record",
  "PUT settings/archive": "a company-wide setting (admins): no record",
  "GET settings/sso": "SSO settings (admins): no record",
  "PUT settings/sso": "SSO settings (admins): no record",
  "GET sources": async () => {
    const r = await call(asA("anaA"), "GET", "sources");
    await expectNothing(Promise.resolve(r), "sources");
    // a broker source's state and counts are its claiming teams' (by origin): B's is not listed to A, A's is
    expect((r.json() as { sources: { name: string }[] }).sources.map((x) => x.name)).toEqual([A_BROKER]);
  },
  "POST sources": "adds a broker source (admins)",
  "GET sources/[name]": async () => {
    const r = await call(asA("anaA"), "GET", "sources/[name]", { params: { name: B_BROKER } });
    expect(r.status, r.text).toBe(404);
    expect((await call(asA("anaA"), "GET", "sources/[name]", { params: { name: A_BROKER } })).status).toBe(200);
  },
  "PATCH sources/[name]": "changes a broker source (admins)",
  "DELETE sources/[name]": "removes a broker source (admins)",
  "POST sources/[name]/pull": "pulls a broker source now (admins)",
  "GET sources/[name]/status": async () => {
    const r = await call(asA("anaA"), "GET", "sources/[name]/status", { params: { name: B_BROKER } });
    expect(r.status, r.text).toBe(404);
    expect(r.text).not.toContain("pulled");
  },
  "GET teams": "teams (admins, unscoped)",
  "POST teams": "teams (admins, unscoped)",
  "GET teams/[id]": "teams (admins, unscoped)",
  "PATCH teams/[id]": "teams (admins, unscoped)",
  "DELETE teams/[id]": "teams (admins, unscoped)",
  "GET tokens": "the caller's own API tokens",
  "POST tokens": "the caller's own API tokens",
  "DELETE tokens/[id]": "the caller's own API tokens",
  "GET rules": async () => {
    const r = await call(asA("supA"), "GET", "rules");
    await expectNothing(Promise.resolve(r), "rules");
    expect((r.json() as { rules: { id: string }[] }).rules.map((x) => x.id)).not.toContain(b.ruleId);
  },
  "POST rules": async () => {
    const r = await call(asA("supA"), "POST", "rules", {
      body: { name: "reach-into-b", match: { source: "team-b-parcels" }, action: { type: "leave" } },
    });
    expect(r.status, r.text).toBe(422);
    const wide = await call(asA("supA"), "POST", "rules", {
      body: { name: "every-source", match: { kind: "spatial" }, action: { type: "leave" } },
    });
    expect(wide.status, wide.text).toBe(422);
  },
  "GET rules/[id]": async () => {
    await expect404(call(asA("anaA"), "GET", "rules/[id]", { params: { id: b.ruleId } }), "rule");
  },
  "PATCH rules/[id]": async () => {
    await expect404(call(asA("supA"), "PATCH", "rules/[id]", { params: { id: b.ruleId }, body: { enabled: false } }), "kill switch");
  },
  "POST rules/[id]/approve": async () => {
    await expect404(call(asA("supA"), "POST", "rules/[id]/approve", { params: { id: b.ruleId }, body: { version: 1 } }), "approve rule");
  },
  "POST rules/[id]/dry-run": async () => {
    await expect404(call(asA("supA"), "POST", "rules/[id]/dry-run", { params: { id: b.ruleId }, body: {} }), "dry run");
    // their own rule, with a draft match reaching into B's records: by source, by broker source, or by naming none
    for (const match of [{ source: "team-b-parcels" }, { origin: B_BROKER }, { kind: "afc" }, { kind: "spatial", reason: "topology" }]) {
      const r = await call(asA("supA"), "POST", "rules/[id]/dry-run", { params: { id: aRule.id }, body: { match } });
      expect(r.status, `draft ${JSON.stringify(match)}: ${r.text}`).toBe(422);
      expect(leaks(r.text), JSON.stringify(match)).toEqual([]);
    }
  },
  "POST rules/[id]/apply": async () => {
    await expect404(call(asA("supA"), "POST", "rules/[id]/apply", { params: { id: b.ruleId }, body: { version: 1 } }), "apply");
  },
  "POST rules/[id]/resume": async () => {
    await expect404(call(asA("supA"), "POST", "rules/[id]/resume", { params: { id: b.ruleId } }), "resume rule");
  },
  "GET rules/[id]/jobs/[jobId]": async () => {
    await expect404(call(asA("anaA"), "GET", "rules/[id]/jobs/[jobId]", { params: { id: b.ruleId, jobId: b.ruleJobId } }), "rule job");
    // A's own rule, dry-run with a draft of B's source or of every team's: the job's counts are of its own match
    for (const [jobId, what] of [
      [aRule.bJob, "a draft of b's source"],
      [aRule.wideJob, "a draft of every team's"],
    ] as const)
      for (const reader of ["anaA", "supA", "audA"] as const)
        await expect404(call(asA(reader), "GET", "rules/[id]/jobs/[jobId]", { params: { id: aRule.id, jobId } }), `${reader}: ${what}`);
    const own = await call(asA("anaA"), "GET", "rules/[id]/jobs/[jobId]", { params: { id: aRule.id, jobId: aRule.ownJob } });
    expect(own.status, own.text).toBe(200); // the seam does not hide the team's own
    // their starters still read them: the supervisor in both teams, and the one in none
    for (const [token, jobId] of [
      [tokens.supAB, aRule.bJob],
      [tokens.supAll, aRule.wideJob],
    ] as const) {
      const started = await call(token, "GET", "rules/[id]/jobs/[jobId]", { params: { id: aRule.id, jobId } });
      expect(started.status, started.text).toBe(200);
    }
  },
  "GET users": "accounts (admins)",
  "POST users": "accounts (admins)",
  "PATCH users/[id]": "accounts (admins)",
};

/** Every operation a route file answers (405 answers excluded), as `METHOD dir`. */
function operations(): string[] {
  const out: string[] = [];
  for (const { dir, module } of ROUTE_MODULES)
    for (const m of METHODS) {
      const h = module[m] as Handler | undefined;
      if (h?.meta && !("notAllowed" in h.meta.access)) out.push(`${m} ${dir}`);
    }
  return out;
}

describe("team scope on every route", () => {
  it("every API operation is probed here or named as holding no team records", () => {
    const unknown = operations().filter((op) => !(op in PROBES));
    expect(unknown, "classify these operations in PROBES (tests/integration/team-scope.test.ts)").toEqual([]);
    const stale = Object.keys(PROBES).filter((op) => !operations().includes(op));
    expect(stale, "no such operation any more").toEqual([]);
  });

  it("team B sees its own records (the setup is what the probes assume)", async () => {
    const list = (await call(tokens.anaB, "GET", "dead-letters")).json() as { items: { id: string }[] };
    expect(list.items.map((i) => i.id).sort()).toEqual(recordIds().sort());
    expect((await call(tokens.supB, "GET", "replays/[id]", { params: { id: b.batchId } })).status).toBe(200);
    expect((await call(tokens.supB, "GET", "replays/[id]", { params: { id: b.standingBatchId } })).status).toBe(200);
    expect((await call(tokens.anaB, "GET", "groups/[id]", { params: { id: b.groupId } })).status).toBe(200);
  });

  for (const op of operations()) {
    const probe = PROBES[op];
    if (typeof probe !== "function") continue;
    it(`${op}: team A finds none of team B's records`, probe, 60_000);
  }

  it("an admin in no team still sees every record", async () => {
    const list = (await call(tokens.admin, "GET", "dead-letters")).json() as { items: { id: string }[] };
    expect(list.items.length).toBe(aIds.length + recordIds().length);
    const alerts = (await call(tokens.admin, "GET", "alerts")).json() as { rules: { id: string; lastValue: number | null }[] };
    const values = Object.fromEntries(alerts.rules.map((r) => [r.id, r.lastValue]));
    expect([values[aAlertId], values[b.alertId]]).toEqual([aIds.length, recordIds().length]);
  });

  it("a rule redrafted from team B's source onto team A's stays B's too: its versions, counts and flow show B's match", async () => {
    const drafted = await call(tokens.supAB, "POST", "rules", {
      body: { name: "moved-to-a", match: { source: "team-b-parcels" }, action: { type: "leave" } },
    });
    expect(drafted.status, drafted.text).toBe(201);
    const id = (drafted.json() as { id: string }).id;
    const redrafted = await call(tokens.supAB, "PATCH", "rules/[id]", { params: { id }, body: { match: { source: "team-a-parcels" } } });
    expect(redrafted.status, redrafted.text).toBe(200);
    for (const token of ["supA", "anaA", "audA"] as const) {
      await expect404(call(asA(token), "GET", "rules/[id]", { params: { id } }), `rule moved to A, as ${token}`);
      const list = await call(asA(token), "GET", "rules");
      expect((list.json() as { rules: { id: string }[] }).rules.map((r) => r.id)).not.toContain(id);
    }
    expect((await call(tokens.supAB, "GET", "rules/[id]", { params: { id } })).status).toBe(200);
  });

  it("a record's timeline leaves out the events of a batch that reaches into another team's records (404 to its reader)", async () => {
    // Last: it adds a record to each team. An unscoped supervisor batches one of each; a second one approves it.
    const [lead, second] = await Promise.all([makeUser(db, "supervisor"), makeUser(db, "supervisor")]);
    const [leadToken, secondToken] = await Promise.all([makeToken(db, lead.id), makeToken(db, second.id)]);
    const [aMixed, bMixed] = await ingest([
      spatial("team-a-parcels", "ta-key-mix", 2.36, "topology: ring self-intersection"),
      // team-b-gates: B's standing rule (team-b-parcels) would approve it into its own batch
      spatial("team-b-gates", "tb-key-mix", 2.36, "topology: ring self-intersection"),
    ]);
    for (const id of [aMixed!, bMixed!]) await decide(leadToken, id, { action: "approve" });
    const batch = await call(leadToken, "POST", "replays", {
      body: { ids: [aMixed, bMixed], sink: { type: "ledger" }, ratePerSecond: 10 },
    });
    expect(batch.status, batch.text).toBe(201);
    const batchId = (batch.json() as { id: string }).id;
    const approved = await call(secondToken, "POST", "replays/[id]/approve", { params: { id: batchId }, body: {} });
    expect(approved.status, approved.text).toBeLessThan(300);
    const whole = await call(leadToken, "GET", "dead-letters/[id]/timeline", { params: { id: aMixed! } });
    expect(whole.text).toContain(bMixed!); // the batch's events list both records to an unscoped reader
    const r = await call(asA("anaA"), "GET", "dead-letters/[id]/timeline", { params: { id: aMixed! } });
    expect(r.status, r.text).toBe(200);
    expect(r.text).not.toContain(`"${bMixed}"`);
    expect(r.text).not.toContain("tb-key-mix");
    expect(leaks(r.text)).toEqual([]);
    await expect404(call(asA("anaA"), "GET", "replays/[id]", { params: { id: batchId } }), "the mixed batch");
  });
});
