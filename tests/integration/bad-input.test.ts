import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ROUTE_MODULES } from "../../app/api/route-modules.generated";
import type { RouteMeta } from "../../lib/api/handler";
import type { DescribedOperation } from "../../lib/api/openapi";
import { openApiDocument, openApiPath } from "../../lib/api/route-operations";
import { can, type Role } from "../../lib/auth/permissions";
import { closeDb, type Db } from "../../lib/db/client";
import { readRecordScope } from "../../lib/auth/teams/read-scope";
import { createBulkJob } from "../../lib/dead-letters/triage/bulk-jobs";
import { createSource } from "../../lib/sources/manage-sources";
import { CreateSourceBody } from "../../lib/sources/source-schemas";
import { makeToken, makeUser, randomIp, setTestAuthEnv, signIn } from "./auth-helpers";
import { authShape, judge, judgeIngest, type Answer, type ErrorBody } from "./bad-input-judge";
import { bodyProbes, paramProbes, queryProbes, type JsonSchema, type Probe, type QueryParam } from "./bad-input-probes";
import { testDb } from "./helpers";

// "Bad input gets a clear error (HTTP 4xx with a JSON body naming the field) and loses nothing already stored."
// Every API operation is read from the generated route list (the one OpenAPI reads) and sent malformed path
// parameters, query strings and bodies (bad-input-probes.ts), as a role allowed to call it: the answer is a 4xx in
// the error shape naming the field, never a 5xx, and no table changes. A new operation is probed without a line
// here; one that takes a body needs a body it takes in BASELINES, so each probe changes one thing.

setTestAuthEnv();

type Handler = ((req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>) & {
  meta?: RouteMeta;
};

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

interface Op {
  key: string;
  method: (typeof METHODS)[number];
  dir: string;
  handler: Handler;
  meta: RouteMeta;
}

const OPS: Op[] = ROUTE_MODULES.flatMap(({ dir, module }) =>
  METHODS.flatMap((method) => {
    const handler = module[method] as Handler | undefined;
    const meta = handler?.meta;
    if (!handler || !meta || "notAllowed" in meta.access) return [];
    return [{ key: `${method} ${dir}`, method, dir, handler, meta }];
  }),
);

/**
 * Operations not probed, and why: none today. An operation this file cannot probe is named here with the reason, and
 * the first test fails for one neither probed nor named, and for a name that is no operation any more.
 */
const EXCUSED: Record<string, string> = {};

/** Role order: the first that holds an operation's permission calls it (admins and supervisors first). */
const ROLE_ORDER: Role[] = ["admin", "supervisor", "auditor", "producer", "analyst"];

let db: Db;
/** a token for each role, and a second supervisor to approve the first one's rule */
const tokens: Record<string, string> = {};
const seed = {
  recordId: "",
  producerRecordId: "",
  batchId: "",
  ruleId: "",
  ruleJobId: "",
  bulkJobId: "",
  groupId: "",
  teamId: "",
  tokenId: "",
  userId: "",
  viewId: "",
  alertId: "fuzz-alert",
  source: "fuzz-broker",
  envelope: {} as Record<string, unknown>,
};

/** Each path parameter's real value, by the folder it follows (`rules.id`, `jobs.jobId`), so a wrongly taken probe would act. */
const REAL_PARAMS: Record<string, () => string> = {
  "alerts.id": () => seed.alertId,
  "dead-letters.id": () => seed.recordId,
  "bulk.jobId": () => seed.bulkJobId,
  "groups.id": () => seed.groupId,
  "records.id": () => seed.producerRecordId,
  "replays.id": () => seed.batchId,
  "rules.id": () => seed.ruleId,
  "jobs.jobId": () => seed.ruleJobId,
  "sources.name": () => seed.source,
  "teams.id": () => seed.teamId,
  "tokens.id": () => seed.tokenId,
  "users.id": () => seed.userId,
  "views.id": () => seed.viewId,
};

/**
 * A body each operation takes (checked against its schema below): a probe changes one thing in it. Sent as is, most
 * would act; no probe sends it unchanged.
 */
const BASELINES: Record<string, () => Record<string, unknown>> = {
  "POST afc/taps": () => ({ source: "fuzz-taps", taps: [] }),
  "POST alerts": () => ({ name: "fuzz alert 2", metric: "dlq_size", threshold: 5 }),
  "PATCH alerts/[id]": () => ({ name: "renamed" }),
  // better-auth's: a wrong password, so a probe it takes is still refused (401) without signing anyone in
  "POST auth/[...all]/sign-in/email": () => ({ email: "nobody@test.local", password: "not-the-password" }),
  "POST auth/[...all]/sign-in/social": () => ({ provider: "oidc" }),
  "POST auth/[...all]/change-password": () => ({ currentPassword: "not-the-password", newPassword: "another-long-password" }),
  "POST auth/[...all]/revoke-session": () => ({ token: "no-such-session" }),
  "POST dead-letters": () => ({ ...seed.envelope, idempotency_key: "fuzz-new-key" }),
  "POST dead-letters/[id]/actions": () => ({ action: "quarantine", version: 1, reason: "fuzz" }),
  "POST dead-letters/[id]/notes": () => ({ text: "fuzz note" }),
  "POST dead-letters/[id]/reveal": () => ({ path: "/payload" }),
  "POST dead-letters/bulk": () => ({ action: "reopen", reason: "fuzz", ids: [seed.recordId] }),
  "PATCH groups/[id]": () => ({ status: "acknowledged" }),
  "POST quarantine/purge": () => ({ ids: [seed.recordId], reason: "fuzz" }),
  "POST quarantine/release": () => ({ ids: [seed.recordId], reason: "fuzz" }),
  "POST replays": () => ({ ids: [seed.recordId], sink: { type: "ledger" }, ratePerSecond: 10 }),
  "POST rules": () => ({ name: "fuzz-rule-2", match: { source: "fuzz-src" }, action: { type: "leave" } }),
  "PATCH rules/[id]": () => ({ enabled: false }),
  "POST rules/[id]/apply": () => ({ version: 1 }),
  "POST rules/[id]/approve": () => ({ version: 1 }),
  "POST rules/[id]/dry-run": () => ({ match: { source: "fuzz-src" } }),
  "PUT settings/archive": () => ({ days: 30 }),
  "PUT settings/replay-approval": () => ({ limit: 3 }),
  "PUT settings/sso": () => ({ name: "Fuzz SSO" }),
  "POST sources": () => ({ name: "fuzz-src-2", type: "rabbitmq", url: "amqp://127.0.0.1:1", kind: "afc", options: { queue: "q" } }),
  "PATCH sources/[name]": () => ({ enabled: false }),
  "POST sources/[name]/pull": () => ({ max: 1 }),
  "POST teams": () => ({ name: "fuzz team 2" }),
  "PATCH teams/[id]": () => ({ name: "renamed team" }),
  "POST tokens": () => ({ name: "fuzz token" }),
  "POST users": () => ({ email: "fuzz-new@test.local", role: "analyst" }),
  "PATCH users/[id]": () => ({ role: "auditor" }),
  "POST views": () => ({ name: "fuzz view 2", filter: "status=pending" }),
  "PATCH views/[id]": () => ({ name: "renamed view" }),
  "PUT views/default": () => ({ viewId: null }),
};

/**
 * Probes an operation is documented to take (a 2xx is right; never a 5xx), by the probe's name, and why. A probe the
 * body's schema takes is listed by the schema itself (probesOf), not here.
 */
const TAKEN: Record<string, Record<string, string>> = {
  "POST dead-letters": {
    "body an empty array": "a batch of no envelopes: nothing to store, nothing to refuse",
  },
  "POST afc/taps": {
    "body an empty array": "a batch of no taps: nothing to capture, nothing to refuse",
  },
  // better-auth ends the caller's own session with that token if there is one and answers {status: true} either
  // way: a revoke is idempotent, and no one else's session can be named. It ignores keys it does not read.
  "POST auth/[...all]/revoke-session": {
    "an unknown field": "an idempotent revoke of the caller's own session: nothing to refuse",
    "token: 2 MB": "an idempotent revoke of the caller's own session: nothing to refuse",
  },
};

/**
 * Probes not sent, and why: the ingest routes store what fails by design (it is what a dead-letter queue is for), so
 * a probe of what a stored record holds would add a record, not find a defect. What they refuse is probed.
 */
const INGESTED_AS_POISON = "stored by design as a poison record with its reason (lib/spatial/normalize-envelope.ts; ingest.test.ts)";
const CAPTURED = "a tap that fails the gate is captured by design (lib/dead-letters/ingest/tap-gate.ts; afc-capture.test.ts)";
const NOT_SENT: Record<string, Record<string, string>> = {
  "POST dead-letters": {
    "body an array": "a JSON array is a batch of envelopes (documented): the baseline would be stored",
    "an unknown field": "unknown top-level keys are kept: producers add bookkeeping fields, the envelope is stored verbatim",
    "source: {}": INGESTED_AS_POISON,
    "source: [[]]": INGESTED_AS_POISON,
    "idempotency_key: {}": INGESTED_AS_POISON,
    "idempotency_key: [[]]": INGESTED_AS_POISON,
    "dead_letter_reason: {}": "an object reason (an exception some handlers store) is kept as its JSON text",
    "dead_letter_reason: [[]]": "a reason that is not text is kept as its JSON text",
    "feature: {}": INGESTED_AS_POISON,
    "feature.type: 2 MB": INGESTED_AS_POISON,
    "feature.geometry.type: 2 MB": INGESTED_AS_POISON,
    "dead_letter_reason: 2 MB":
      "a reason may be a whole stack trace: kept whole, grouped by its first 2,000 characters (lib/afc/reason-group.ts)",
  },
  "POST afc/taps": {
    "body an array": CAPTURED,
    "taps: [[]]": CAPTURED,
  },
};

const real = (dir: string): Record<string, string | string[]> => {
  const segments = dir.split("/");
  const out: Record<string, string | string[]> = {};
  segments.forEach((s, i) => {
    const name = /^\[(\w+)\]$/.exec(s)?.[1];
    if (!name) return;
    const value = REAL_PARAMS[`${segments[i - 1]}.${name}`];
    out[name] = value ? value() : "1";
  });
  return out;
};

const AUTH_ORIGIN = "http://localhost:3000";
/** a signed-in session for each of better-auth's paths, each of its own user */
const sessionCookies: Record<string, string> = {};
let requestCount = 0;
/** Request ids of probes the route was allowed to take (`any`) and did: the only ones that may leave an audit event. */
const acceptedRequestIds = new Set<string>();

async function send(op: Op, probe: Probe, subpath?: string): Promise<Answer> {
  const params = probe.params ?? real(op.dir);
  const path = subpath
    ? `${op.dir.replace(/\/\[\.\.\.\w+\]$/, "")}${subpath}`
    : op.dir.replace(/\[(?:\.\.\.)?(\w+)\]/g, (_, p: string) => {
        const v = params[p];
        return Array.isArray(v) ? v.map(encodeURIComponent).join("/") : encodeURIComponent(v ?? "1");
      });
  const requestId = `fuzz-${++requestCount}`;
  const headers: Record<string, string> = { "x-request-id": requestId };
  const role = roleFor(op);
  if (role) headers.authorization = `Bearer ${tokens[role]}`;
  // better-auth checks the origin against its own and rate-limits sign-ins per address; a session of its own per
  // path (sign-out ends one, revoke-sessions all of a user's), so change-password and revoke-session read their
  // bodies instead of answering 401 first
  else if (subpath) Object.assign(headers, { origin: AUTH_ORIGIN, "x-forwarded-for": randomIp(), cookie: sessionCookies[subpath] });
  if (probe.body !== undefined) headers["content-type"] = probe.contentType ?? "application/json";
  const url = `${subpath ? AUTH_ORIGIN : "http://localhost"}/api/${path}${probe.query ? `?${probe.query}` : ""}`;
  const ctxParams = subpath ? { [/\[\.\.\.(\w+)\]$/.exec(op.dir)![1]!]: subpath.split("/").filter(Boolean) } : params;
  const res = await op.handler(new Request(url, { method: op.method, headers, body: probe.body }), {
    params: Promise.resolve(ctxParams),
  });
  return { status: res.status, text: await res.text(), requestId };
}

function roleFor(op: Op): Role | null {
  const access = op.meta.access;
  if (!("permission" in access)) return null;
  const role = ROLE_ORDER.find((r) => can(r, access.permission));
  if (!role) throw new Error(`${op.key}: no role holds ${access.permission}`);
  return role;
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
}

const doc = openApiDocument(ROUTE_MODULES) as {
  paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema: JsonSchema }[] }>>;
};

function queryParamsOf(op: Op): QueryParam[] {
  const params = doc.paths[openApiPath(op.dir)]?.[op.method.toLowerCase()]?.parameters ?? [];
  return params.filter((p) => p.in === "query").map((p) => ({ name: p.name, schema: p.schema }));
}

/** Query parameters sent with every query probe of an operation that needs one to answer at all. */
const QUERY_BASE: Record<string, Record<string, string>> = {
  "GET lookup": { q: "fuzz-key-1" }, // a key, a place or both: without one every probe is refused for q
};

function withQueryBase(op: Op, probe: Probe): Probe {
  const base = QUERY_BASE[op.key];
  if (!base || probe.query === undefined) return probe;
  const probed = new Set(new URLSearchParams(probe.query).keys());
  const kept = Object.entries(base).filter(([k]) => !probed.has(k));
  return { ...probe, query: [new URLSearchParams(kept).toString(), probe.query].filter(Boolean).join("&") };
}

/**
 * A wrong-typed field the body's schema takes after all (an object whose members all have defaults, an edit's
 * payload, which is any JSON) is not bad input: it may be taken, never with a 5xx.
 */
function bySchema(schema: z.ZodType | undefined, probe: Probe): Probe {
  if (!schema || probe.body === undefined || probe.expect !== "refuse" || !/(: \{\}|: \[\[\]\]|every field \{\})$/.test(probe.what))
    return probe;
  let value: unknown;
  try {
    value = JSON.parse(probe.body);
  } catch {
    return probe;
  }
  return schema.safeParse(value).success ? { ...probe, expect: "any", why: "the body's schema takes it" } : probe;
}

function documented(key: string, probes: Probe[]): Probe[] {
  const taken = TAKEN[key] ?? {};
  const notSent = NOT_SENT[key] ?? {};
  return probes
    .filter((p) => !(p.what in notSent))
    .map((p) => (p.what in taken ? { ...p, expect: "any" as const, why: taken[p.what] } : p));
}

/** The probes of one operation (a catch-all's for each path it documents). */
function probesOf(op: Op, raw = false): { subpath?: string; probes: Probe[]; shape?: (text: string) => ErrorBody | string }[] {
  const openapi = op.meta.openapi;
  if (openapi && "subpaths" in openapi) {
    return Object.entries(openapi.subpaths).map(([path, d]) => {
      const subpath = path.replace("{id}", "oidc"); // the one provider better-auth is configured with
      const probes = d.body ? bodyProbes(jsonSchemaOf(d.body), baselineOf(`${op.key}${path}`)) : noInputProbes(op);
      return { subpath, probes: raw ? probes : documented(`${op.key}${path}`, probes), shape: authShape };
    });
  }
  if (!openapi || "undocumented" in openapi) return [{ probes: noInputProbes(op) }];
  const d = openapi as DescribedOperation;
  const probes: Probe[] = [];
  const realParams = real(op.dir);
  const baseline = d.body || d.rawBody ? JSON.stringify(baselineOf(op.key)) : undefined;
  if (d.params) {
    for (const name of Object.keys(realParams))
      probes.push(...paramProbes(d.params, realParams, name).map((p) => ({ ...p, body: baseline })));
  }
  for (const qp of queryParamsOf(op)) probes.push(...queryProbes(qp).map((p) => ({ ...p, body: baseline })));
  if (d.query) {
    const why = "unknown parameters are ignored: caches and proxies add their own (_=…)";
    probes.push({ what: "an unknown query parameter", expect: "any", why, query: "zzNotAParam=1", body: baseline });
  }
  if (d.body) probes.push(...bodyProbes(jsonSchemaOf(d.body), baselineOf(op.key)).map((p) => bySchema(d.body, p)));
  if (d.rawBody) probes.push(...bodyProbes({}, baselineOf(op.key)));
  if (!probes.length) return [{ probes: noInputProbes(op) }];
  return [{ probes: (raw ? probes : documented(op.key, probes)).map((p) => withQueryBase(op, p)) }];
}

/** An operation that reads nothing from the request ignores what it is sent: never a 5xx for it. */
function noInputProbes(op: Op): Probe[] {
  const why = "the operation reads no query and no body";
  const probes: Probe[] = [
    { what: "a junk query", expect: "any", why, query: "limit=-1&cursor=garbage&zz=1&zz=2" },
    // refused before any route reads it (PostgreSQL's text cannot hold it), whether the route reads a query or not
    { what: "a query holding NUL", expect: "refuse", field: "zz", query: "zz=a%00b" },
  ];
  if (op.method !== "GET") probes.push({ what: "a body that is not JSON", expect: "any", why, body: '{"a": 1,' });
  return probes;
}

function baselineOf(key: string): Record<string, unknown> {
  const b = BASELINES[key];
  return b ? b() : {};
}

async function api(
  role: string,
  method: string,
  dir: string,
  opts: { params?: Record<string, string>; body?: unknown } = {},
): Promise<unknown> {
  const op = OPS.find((o) => o.key === `${method} ${dir}`)!;
  const path = dir.replace(/\[(\w+)\]/g, (_, p: string) => opts.params?.[p] ?? "1");
  const res = await op.handler(
    new Request(`http://localhost/api/${path}`, {
      method,
      headers: { authorization: `Bearer ${tokens[role]}`, "content-type": "application/json" },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    { params: Promise.resolve(opts.params ?? {}) },
  );
  const text = await res.text();
  if (res.status >= 300) throw new Error(`seed ${method} ${dir}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Tables that change without a write from the request: skipped by the fingerprint, with the reason. */
const UNWATCHED: Record<string, string> = {
  api_token: "last_used_at is written on use (at most once a minute per token)",
  session: "better-auth's sessions",
  verification: "better-auth's OAuth state",
  auth_rate_limit: "better-auth counts sign-in attempts per address",
  audit_event: "checked on its own: only probes the route may take may leave an event",
  audit_head: "moves with audit_event",
};

/** Refusals the product writes to the audit trail. */
const AUDITED_REFUSALS = new Set(["auth.sign_in_failed", "auth.sign_in_throttled"]);

type Fingerprint = Record<string, string>;

async function fingerprint(): Promise<Fingerprint> {
  const { rows } = await db.pool.query<{ t: string }>(
    "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
  );
  const out: Fingerprint = {};
  for (const { t } of rows) {
    if (t in UNWATCHED || t.startsWith("_prisma")) continue;
    const { rows: r } = await db.pool.query<{ n: number; h: string }>(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '')) AS h FROM "${t}" x`,
    );
    out[t] = `${r[0]!.n} rows ${r[0]!.h}`;
  }
  return out;
}

let before: Fingerprint = {};
let auditBefore = 0;

const square = [
  [
    [2.35, 48.85],
    [2.36, 48.85],
    [2.36, 48.86],
    [2.35, 48.86],
    [2.35, 48.85],
  ],
];

beforeAll(async () => {
  db = await testDb();
  const users: Partial<Record<Role | "supervisor2", { id: string }>> = {};
  for (const role of [...ROLE_ORDER, "supervisor2"] as const) {
    const user = await makeUser(db, role === "supervisor2" ? "supervisor" : role);
    users[role] = user;
    if (role !== "supervisor2") tokens[role] = await makeToken(db, user.id);
  }
  tokens.supervisor2 = await makeToken(db, users.supervisor2!.id);
  seed.userId = users.analyst!.id;
  for (const op of OPS) {
    const openapi = op.meta.openapi;
    if (!openapi || !("subpaths" in openapi)) continue;
    for (const subpath of Object.keys(openapi.subpaths)) {
      const signedIn = await signIn((await makeUser(db, "analyst")).email);
      expect(signedIn.res.status).toBe(200);
      sessionCookies[subpath] = signedIn.cookie;
    }
  }
  seed.envelope = {
    kind: "spatial",
    source: "fuzz-src",
    idempotency_key: "fuzz-key-1",
    observed_at: "2026-12-01T00:00:00Z",
    feature: { type: "Feature", id: "f1", geometry: { type: "Polygon", coordinates: square }, properties: {} },
    dead_letter_reason: "HTTP 503 from parcels API",
  };
  const ingest = async (role: Role, envelopes: unknown[]) =>
    ((await api(role, "POST", "dead-letters", { body: envelopes })) as { results: { id: string }[] }).results.map((r) => r.id);
  seed.recordId = (await ingest("admin", [seed.envelope, { ...seed.envelope, idempotency_key: "fuzz-key-2" }]))[0]!;
  seed.producerRecordId = (await ingest("producer", [{ ...seed.envelope, idempotency_key: "fuzz-key-3" }]))[0]!;
  const detail = (await api("supervisor", "GET", "dead-letters/[id]", { params: { id: seed.recordId } })) as { version: number };
  await api("supervisor", "POST", "dead-letters/[id]/actions", {
    params: { id: seed.recordId },
    body: { action: "approve", version: detail.version },
  });
  await api("supervisor", "POST", "dead-letters/[id]/notes", { params: { id: seed.recordId }, body: { text: "a note" } });
  seed.batchId = (
    (await api("supervisor", "POST", "replays", { body: { ids: [seed.recordId], sink: { type: "ledger" }, ratePerSecond: 5 } })) as {
      id: string;
    }
  ).id;
  seed.ruleId = (
    (await api("supervisor", "POST", "rules", {
      body: { name: "fuzz-rule", match: { source: "fuzz-src" }, action: { type: "leave" } },
    })) as { id: string }
  ).id;
  await api("supervisor2", "POST", "rules/[id]/approve", { params: { id: seed.ruleId }, body: { version: 1 } });
  seed.ruleJobId = (
    (await api("supervisor", "POST", "rules/[id]/dry-run", { params: { id: seed.ruleId }, body: {} })) as { job: { id: string } }
  ).job.id;
  const bulk = await createBulkJob(
    db.pool,
    { action: "reopen", reason: "fuzz", filter: { source: ["fuzz-src"] } },
    {
      actor: { id: users.supervisor!.id, email: "s@test.local", role: "supervisor" },
      scope: await readRecordScope(db.pool, users.supervisor!.id),
      requestId: "seed",
      now: new Date(),
    },
  );
  seed.bulkJobId = bulk.id;
  seed.groupId = ((await api("analyst", "GET", "groups")) as { groups: { id: string }[] }).groups[0]!.id;
  seed.teamId = ((await api("admin", "POST", "teams", { body: { name: "fuzz team" } })) as { id: string }).id;
  await api("supervisor", "POST", "alerts", { body: { id: seed.alertId, name: "fuzz alert", metric: "dlq_size", threshold: 100 } });
  seed.viewId = ((await api("analyst", "POST", "views", { body: { name: "fuzz view", filter: "status=pending" } })) as { id: string }).id;
  seed.tokenId = ((await api("admin", "GET", "tokens")) as { tokens: { id: string }[] }).tokens[0]!.id;
  // Written as POST /api/sources would, without asking a broker (the route tests the connection after).
  const source = CreateSourceBody.parse({
    name: seed.source,
    type: "rabbitmq",
    url: "amqp://127.0.0.1:1",
    kind: "afc",
    options: { queue: "q" },
    enabled: false,
  });
  await createSource(db.pool, source, { actor: { id: null, email: "seed", role: "system" }, requestId: "seed", now: new Date() });
  before = await fingerprint();
  auditBefore = Number((await db.pool.query<{ n: string }>("SELECT coalesce(max(id), 0) AS n FROM audit_event")).rows[0]!.n);
}, 120_000);

afterAll(async () => {
  await db?.pool.end();
  await closeDb();
});

describe("bad input", () => {
  it("probes or excuses every operation, and excuses only existing ones", () => {
    const keys = OPS.map((o) => o.key);
    for (const key of Object.keys(EXCUSED)) expect(keys, `EXCUSED names ${key}, which does not exist`).toContain(key);
    for (const key of Object.keys(BASELINES)) {
      expect(
        keys.some((k) => key === k || key.startsWith(`${k}/`)),
        `BASELINES names ${key}, which does not exist`,
      ).toBe(true);
    }
    for (const [key, whats] of [...Object.entries(TAKEN), ...Object.entries(NOT_SENT)]) {
      const op = OPS.find((o) => key === o.key || key.startsWith(`${o.key}/`));
      expect(op, `${key} is listed but does not exist`).toBeDefined();
      const subpath = key.slice(op!.key.length);
      const all = probesOf(op!, true)
        .filter((p) => (p.subpath ?? "") === subpath.replace("{id}", "oidc"))
        .flatMap((p) => p.probes.map((x) => x.what));
      for (const what of Object.keys(whats)) expect(all, `${key}: no probe "${what}" any more`).toContain(what);
    }
    for (const op of OPS) {
      if (op.key in EXCUSED) continue;
      const d = op.meta.openapi;
      const takesBody =
        d !== undefined && !("undocumented" in d) && !("subpaths" in d) && (d.body !== undefined || d.rawBody !== undefined);
      if (takesBody) expect(BASELINES, `${op.key} takes a body: give BASELINES a body it takes`).toHaveProperty([op.key]);
      expect(probesOf(op).flatMap((p) => p.probes).length, `${op.key} has no probe and no excuse`).toBeGreaterThan(0);
    }
  });

  it("has baselines each operation's schema takes", () => {
    for (const op of OPS) {
      const d = op.meta.openapi as DescribedOperation | undefined;
      if (!BASELINES[op.key] || !d?.body) continue;
      const r = d.body.safeParse(BASELINES[op.key]!());
      expect(r.success, `${op.key}: ${JSON.stringify(r.error?.issues)}`).toBe(true);
    }
  });

  const probed = OPS.filter((o) => !(o.key in EXCUSED));
  it.each(probed.map((o) => [o.key, o] as const))("%s", async (_key, op) => {
    const problems: string[] = [];
    for (const { subpath, probes, shape } of probesOf(op)) {
      for (const probe of probes) {
        const answer = await send(op, probe, subpath);
        const problem = op.key === "POST dead-letters" ? judgeIngest(probe, answer) : judge(probe, answer, shape);
        if (!problem && answer.status < 400) acceptedRequestIds.add(answer.requestId);
        if (problem) problems.push(`${subpath ?? ""} ${probe.what}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("changed nothing stored", async () => {
    expect(await fingerprint()).toEqual(before);
    const { rows } = await db.pool.query<{ action: string; request_id: string | null }>(
      "SELECT action, request_id FROM audit_event WHERE id > $1 ORDER BY id",
      [auditBefore],
    );
    // The product audits one kind of refusal: a failed sign-in (lib/auth/auth.ts), which the probes of
    // better-auth's sign-in are. Any other event must come from a probe the route was allowed to take.
    const unexplained = rows.filter((r) => !AUDITED_REFUSALS.has(r.action) && !(r.request_id && acceptedRequestIds.has(r.request_id)));
    expect(unexplained).toEqual([]);
  });
});
