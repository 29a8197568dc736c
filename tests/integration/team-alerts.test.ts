import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as alertRoutes from "../../app/api/alerts/route";
import * as alertRuleRoutes from "../../app/api/alerts/[id]/route";
import * as teamRoutes from "../../app/api/teams/route";
import { closeDb, type Db } from "../../lib/db/client";
import { evaluateAlerts } from "../../lib/ops/alerts/evaluate";
import { CANARY_ALERT, evaluateRuleAlerts, fireRuleAlert } from "../../lib/rules/rule-alerts";
import { deliverFired } from "../../lib/ops/alerts/webhook";
import { ingest } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Alerts per team (issue 45): a team's rule counts the team's records only — it fires on team A's records and not
// on team B's, though the company-wide count is over its threshold — and posts to its webhook; another team's
// supervisor neither sees it nor changes it (404, the same answer as for no rule at all).

setTestAuthEnv();

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

let db: Db;
let server: Server;
let hookUrl = "";
const received: { type: string; alert: { ruleId: string; team: string | null; value: number } }[] = [];
const tokens = { admin: "", supAll: "", supA: "", anaA: "", supB: "" };
const team = { a: "", b: "" };
const rule = { aBacklog: "", aDown: "", bBacklog: "", bDown: "" };

async function call(token: string, handler: unknown, method: string, opts: { id?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await (handler as Handler)(
    new Request(`http://localhost/api/alerts${opts.id ? `/${opts.id}` : ""}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    { params: Promise.resolve<Record<string, string>>(opts.id ? { id: opts.id } : {}) },
  );
  const text = await res.text();
  return { status: res.status, text, json: <T>() => JSON.parse(text) as T };
}

interface RuleView {
  id: string;
  webhookUrl: string | null;
  teamId: string | null;
  team: string | null;
  lastValue: number | null;
  lastEvaluatedAt: string | null;
  firing: { value: number; message: string } | null;
}
const alerts = async (token: string) =>
  (await call(token, alertRoutes.GET, "GET")).json<{ rules: RuleView[]; events: { ruleId: string; message: string }[] }>();

const taps = (source: string, prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      kind: "afc",
      source,
      raw_payload: {
        event_id: `${prefix}-${i}`,
        device_id: `${prefix}-dev`,
        fare_amount_cents: 250,
        tap_timestamp: "2026-12-01T08:00:00Z",
      },
      failure_reason: "downstream timeout",
      retry_count: 0,
    }),
  );

async function createRule(token: string, body: Record<string, unknown>): Promise<RuleView> {
  const r = await call(token, alertRoutes.POST, "POST", { body });
  expect(r.status, r.text).toBe(201);
  return r.json<RuleView>();
}

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "alert_event", "user"] });
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push(JSON.parse(body) as (typeof received)[number]);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

  const [admin, supAll, supA, anaA, supB] = await Promise.all([
    makeUser(db, "admin"),
    makeUser(db, "supervisor"),
    makeUser(db, "supervisor"),
    makeUser(db, "analyst"),
    makeUser(db, "supervisor"),
  ]);
  Object.assign(tokens, {
    admin: await makeToken(db, admin.id),
    supAll: await makeToken(db, supAll.id),
    supA: await makeToken(db, supA.id),
    anaA: await makeToken(db, anaA.id),
    supB: await makeToken(db, supB.id),
  });
  // A claims its records by a source prefix and its broker source by name (the list's origin); B by source names.
  for (const [key, body] of [
    [
      "a",
      { name: "A", members: [{ userId: supA.id }, { userId: anaA.id }], sources: [{ source: "ta-parcels*" }, { origin: "ta-broker" }] },
    ],
    ["b", { name: "B", members: [{ userId: supB.id }], sources: [{ source: "tb-gates" }] }],
  ] as const) {
    const r = await call(tokens.admin, teamRoutes.POST, "POST", { body });
    expect(r.status, r.text).toBe(201);
    team[key] = r.json<{ id: string }>().id;
  }
  // Both teams' broker sources have failed for two hours; only A's is claimed by A.
  for (const name of ["ta-broker", "tb-broker"])
    await db.pool.query(
      `INSERT INTO source (name, type, url_sealed, kind, failing_since) VALUES ($1, 'rabbitmq', 'unused', 'afc', now() - interval '2 hours')`,
      [name],
    );
  await ingest(db, [...taps("ta-parcels-north", "ta", 2), ...taps("tb-gates", "tb", 5)]);

  // A's supervisor (in one team) leaves the team out; B's names theirs. The same thresholds for both.
  rule.aBacklog = (await createRule(tokens.supA, { name: "A backlog", metric: "dlq_size", threshold: 3, webhookUrl: hookUrl })).id;
  rule.aDown = (await createRule(tokens.supA, { name: "A broker down", metric: "source_down", threshold: 0, windowMinutes: 60 })).id;
  rule.bBacklog = (await createRule(tokens.supB, { teamId: team.b, name: "B backlog", metric: "dlq_size", threshold: 3 })).id;
  rule.bDown = (await createRule(tokens.supB, { teamId: team.b, name: "B broker down", metric: "source_down", threshold: 0 })).id;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await db.pool.end();
  await closeDb();
});

describe("alerts per team", () => {
  it("gives a rule to the creator's team", async () => {
    const all = (await alerts(tokens.admin)).rules;
    const teamOf = Object.fromEntries(all.map((r) => [r.id, r.teamId]));
    expect([teamOf[rule.aBacklog], teamOf[rule.aDown], teamOf[rule.bBacklog], teamOf[rule.bDown]]).toEqual([
      team.a,
      team.a,
      team.b,
      team.b,
    ]);
    expect(all.filter((r) => r.teamId === null).map((r) => r.id)).toContain("dlq-size");
  });

  it("evaluates a team's rule over the team's records only: A's fires on A's records, not on B's", async () => {
    // 7 unresolved records in all, 5 of them B's: over 3 for the company and for B, not for A (2).
    const first = await evaluateAlerts(db.pool, new Date());
    const fired = first.fired.map((f) => f.ruleId);
    expect(fired).toContain(rule.bBacklog);
    expect(fired).not.toContain(rule.aBacklog);
    // Broker sources: each team counts the one it claims (A by origin), B claims none.
    expect(fired).toContain(rule.aDown);
    expect(fired).not.toContain(rule.bDown);
    const values = Object.fromEntries((await alerts(tokens.admin)).rules.map((r) => [r.id, r.lastValue]));
    expect([values[rule.aBacklog], values[rule.bBacklog], values[rule.aDown], values[rule.bDown]]).toEqual([2, 5, 1, 0]);

    // Two more of A's records: now A's backlog is over its threshold, and its webhook is told, naming the team.
    await ingest(db, taps("ta-parcels-south", "ta2", 2));
    const second = await evaluateAlerts(db.pool, new Date());
    expect(second.fired.map((f) => [f.ruleId, f.value, f.team])).toEqual([[rule.aBacklog, 4, "A"]]);
    expect(await deliverFired(db.pool, new Date())).toBe(1);
    expect(received.map((r) => [r.type, r.alert.ruleId, r.alert.team, r.alert.value])).toEqual([["alert.fired", rule.aBacklog, "A", 4]]);
  });

  it("shows a team its rules with values and events, company-wide rules without", async () => {
    for (const token of [tokens.supA, tokens.anaA]) {
      const { rules, events } = await alerts(token);
      expect(rules.map((r) => r.id)).not.toContain(rule.bBacklog);
      const own = rules.find((r) => r.id === rule.aBacklog);
      expect([own?.lastValue, own?.firing?.value]).toEqual([4, 4]);
      for (const r of rules.filter((x) => x.teamId === null)) expect([r.lastValue, r.firing]).toEqual([null, null]);
      expect(new Set(events.map((e) => e.ruleId))).toEqual(new Set([rule.aBacklog, rule.aDown]));
    }
  });

  it("answers another team's supervisor 404 for A's rule, word for word as for no rule at all", async () => {
    const { rules, events } = await alerts(tokens.supB);
    expect(rules.map((r) => r.id)).not.toContain(rule.aBacklog);
    expect(events.map((e) => e.ruleId)).not.toContain(rule.aBacklog);
    const patch = await call(tokens.supB, alertRuleRoutes.PATCH, "PATCH", { id: rule.aBacklog, body: { threshold: 1000 } });
    const none = await call(tokens.supB, alertRuleRoutes.PATCH, "PATCH", { id: "no-such-rule", body: { threshold: 1000 } });
    expect([patch.status, JSON.parse(patch.text).error.message]).toEqual([404, JSON.parse(none.text).error.message]);
    expect((await call(tokens.supB, alertRuleRoutes.DELETE, "DELETE", { id: rule.aBacklog })).status).toBe(404);
    const still = (await alerts(tokens.admin)).rules.find((r) => r.id === rule.aBacklog);
    expect(still?.lastValue).toBe(4); // unchanged, still there
    // and B's supervisor cannot make a rule for A
    const reach = await call(tokens.supB, alertRoutes.POST, "POST", {
      body: { teamId: team.a, name: "x", metric: "dlq_size", threshold: 1 },
    });
    expect([reach.status, reach.text.includes('"teamId"')]).toEqual([422, true]);
  });

  it("lets a team's supervisor edit and remove their rule, and leaves company-wide rules to supervisors in no team", async () => {
    const edited = await call(tokens.supA, alertRuleRoutes.PATCH, "PATCH", { id: rule.aBacklog, body: { threshold: 10 } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.json<{ threshold: number }>().threshold).toBe(10);
    expect((await call(tokens.supA, alertRuleRoutes.PATCH, "PATCH", { id: "dlq-size", body: { threshold: 1 } })).status).toBe(403);
    expect((await call(tokens.supA, alertRuleRoutes.DELETE, "DELETE", { id: rule.aDown })).status).toBe(200);
    expect((await alerts(tokens.supA)).rules.map((r) => r.id)).not.toContain(rule.aDown);
    // A supervisor in no team changes a company-wide rule; the shipped defaults are switched off, not removed.
    const hook = `${hookUrl}/company-secret`;
    const wide = await call(tokens.supAll, alertRuleRoutes.PATCH, "PATCH", {
      id: "dlq-size",
      body: { threshold: 20000, webhookUrl: hook },
    });
    expect(wide.status, wide.text).toBe(200);
    // its webhook (a credential) is shown whole to those who manage the rule, by its origin to a team's supervisor
    const shown = (token: string) => alerts(token).then((a) => a.rules.find((r) => r.id === "dlq-size")?.webhookUrl);
    expect([await shown(tokens.supAll), await shown(tokens.supA)]).toEqual([hook, `${new URL(hookUrl).origin}/…`]);
    expect((await call(tokens.supAll, alertRuleRoutes.DELETE, "DELETE", { id: "dlq-size" })).status).toBe(409);
    const { rows } = await db.pool.query<{ action: string }>(
      "SELECT action FROM audit_event WHERE target_type = 'alert_rule' AND target_id = $1 ORDER BY id",
      [rule.aDown],
    );
    expect(rows.map((r) => r.action)).toEqual(["alert_rule.created", "alert.fired", "alert_rule.deleted"]);
  });
});

describe("alerts about one triage rule (rule-canary, company-wide) per team", () => {
  /** A triage rule whose match names `source`, as /rules keeps it (its latest version decides whose it is). */
  async function triageRule(name: string, source: string): Promise<{ id: string; name: string }> {
    const { rows } = await db.pool.query<{ id: string }>(
      `INSERT INTO rule (name, status, latest_version, active_version, created_at, updated_at) VALUES ($1, 'active', 1, 1, now(), now())
       RETURNING id::text AS id`,
      [name],
    );
    const id = rows[0]!.id;
    await db.pool.query(`INSERT INTO rule_version (rule_id, version, match, action, drafted_at) VALUES ($1, 1, $2, $3, now())`, [
      id,
      JSON.stringify({ kind: "afc", source }),
      JSON.stringify({ type: "approve" }),
    ]);
    return { id, name };
  }

  it("shows a rule's canary event to its team's readers (and the rule firing) and not to another team's", async () => {
    const suffix = Date.now().toString(36);
    const [ra, rb] = [await triageRule(`canary A ${suffix}`, "ta-parcels-north"), await triageRule(`canary B ${suffix}`, "tb-gates")];
    const client = await db.pool.connect();
    try {
      for (const r of [ra, rb])
        expect(await fireRuleAlert(client, CANARY_ALERT, r, 3, `rule ${r.name}: canary failed`, new Date())).not.toBeNull();
    } finally {
      client.release();
    }
    const seen = async (token: string) => {
      const { rules, events } = await alerts(token);
      return {
        firing: rules.find((r) => r.id === CANARY_ALERT)?.firing?.message ?? null,
        events: events.filter((e) => e.ruleId === CANARY_ALERT).map((e) => e.message),
      };
    };
    for (const token of [tokens.supA, tokens.anaA])
      expect(await seen(token)).toEqual({ firing: `rule ${ra.name}: canary failed`, events: [`rule ${ra.name}: canary failed`] });
    expect(await seen(tokens.supB)).toEqual({ firing: `rule ${rb.name}: canary failed`, events: [`rule ${rb.name}: canary failed`] });
    expect((await seen(tokens.supAll)).events.sort()).toEqual([`rule ${ra.name}: canary failed`, `rule ${rb.name}: canary failed`]);

    // The housekeeping round checks the event-driven alerts: they are evaluated (no batch is held, so both resolve).
    const round = await evaluateRuleAlerts(db.pool, new Date());
    expect(round.resolved).toBeGreaterThanOrEqual(2);
    const canary = (await alerts(tokens.supA)).rules.find((r) => r.id === CANARY_ALERT);
    expect([canary?.firing, canary?.lastValue, canary?.lastEvaluatedAt === null]).toEqual([null, null, false]);
    const wide = (await alerts(tokens.supAll)).rules.find((r) => r.id === "rule-refailure");
    expect(wide?.lastEvaluatedAt).not.toBeNull();
  });

  it("refuses a second rule of one metric for one team (Copy for team twice), naming the field", async () => {
    const body = { teamId: team.b, name: "B oldest", metric: "oldest_age", threshold: 24 };
    expect((await call(tokens.supB, alertRoutes.POST, "POST", { body })).status).toBe(201);
    const twice = await call(tokens.supB, alertRoutes.POST, "POST", { body });
    expect([twice.status, twice.json<{ error: { issues: { path: string }[] } }>().error.issues[0]?.path]).toEqual([409, "metric"]);
    // another team may have its own
    expect((await call(tokens.supAll, alertRoutes.POST, "POST", { body: { ...body, teamId: team.a } })).status).toBe(201);
  });
});
