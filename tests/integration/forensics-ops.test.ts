import { createServer, type Server } from "node:http";
import { UNSCOPED } from "../../lib/scope/record-scope";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { closeDb, type Db } from "../../lib/db/client";
import { evaluateAlerts } from "../../lib/ops/alerts/evaluate";
import { updateAlertRule } from "../../lib/ops/alerts/change-alert-rule";
import { maintenanceRound } from "../../lib/ops/maintenance";
import { healthOverview } from "../../lib/ops/overview";
import { runRetention } from "../../lib/ops/retention";
import { recordTimeline } from "../../lib/forensics/timeline";
import { afcRecord, ingest, spatialEnvelope } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv, signIn } from "./auth-helpers";
import { testDb } from "./helpers";

// Alerts (fire once per breach, resolve, webhook delivery to a local server), retention, the overview and
// /api/metrics.

setTestAuthEnv();

let db: Db;
let server: Server;
let hookUrl: string;
let hookStatus = 200;
const received: { type: string; alert: { ruleId: string; value: number } }[] = [];
const ctx = (now: Date) => ({ actor: SYSTEM_ACTOR, scope: UNSCOPED, requestId: "t", now });

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "replay_batch", "ledger_entry", "alert_event", "user"] });
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (hookStatus === 200) received.push(JSON.parse(body) as (typeof received)[number]);
      res.writeHead(hookStatus).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  // only the size rule takes part: the others are switched off
  for (const id of ["poison-growth", "oldest-age"]) await updateAlertRule(db.pool, id, { enabled: false }, ctx(new Date()));
  await updateAlertRule(db.pool, "dlq-size", { threshold: 2, webhookUrl: hookUrl }, ctx(new Date()));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await db.pool.end();
  await closeDb();
});

describe("alerts", () => {
  it("fires once per breach, not per evaluation, delivers to the webhook and resolves below the threshold", async () => {
    const t = (min: number) => new Date(Date.UTC(2026, 10, 29, 12, min));
    await ingest(db, [afcRecord({ eventId: "a1", deviceId: "d", at: 1 }), afcRecord({ eventId: "a2", deviceId: "d", at: 2 })]);
    expect((await maintenanceRound({ pool: db.pool, retentionDays: 90, now: () => t(0), log: () => {} })).fired).toBe(0);

    hookStatus = 500; // the first delivery fails; the next round retries it
    await ingest(db, [afcRecord({ eventId: "a3", deviceId: "d", at: 3 })]);
    const first = await maintenanceRound({ pool: db.pool, retentionDays: 90, now: () => t(1), log: () => {} });
    expect([first.fired, first.delivered]).toEqual([1, 0]);
    hookStatus = 200;
    for (let m = 2; m < 5; m++) {
      const round = await maintenanceRound({ pool: db.pool, retentionDays: 90, now: () => t(m), log: () => {} });
      expect(round.fired).toBe(0);
    }
    const events = await db.pool.query(
      "SELECT value, resolved_at, delivered_at, delivery_attempts FROM alert_event WHERE rule_id = 'dlq-size'",
    );
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0]).toMatchObject({ value: 3, resolved_at: null, delivery_attempts: 2 });
    expect(received.map((r) => [r.type, r.alert.ruleId, r.alert.value])).toEqual([["alert.fired", "dlq-size", 3]]);

    await db.pool.query("UPDATE dead_letter SET status = 'replayed' WHERE event_id IN ('a1', 'a2')");
    const resolved = await maintenanceRound({ pool: db.pool, retentionDays: 90, now: () => t(5), log: () => {} });
    expect([resolved.resolved, resolved.delivered]).toEqual([1, 1]); // the resolution notice counts as delivered
    expect(received.at(-1)?.type).toBe("alert.resolved");

    await db.pool.query("UPDATE dead_letter SET status = 'pending' WHERE event_id IN ('a1', 'a2')");
    expect((await maintenanceRound({ pool: db.pool, retentionDays: 90, now: () => t(6), log: () => {} })).fired).toBe(1); // a new breach
    const all = await db.pool.query("SELECT count(*)::int AS n FROM alert_event WHERE rule_id = 'dlq-size'");
    expect(all.rows[0].n).toBe(2);
    const audited = await db.pool.query(
      "SELECT action FROM audit_event WHERE target_type = 'alert_rule' AND action LIKE 'alert.%' ORDER BY id",
    );
    expect(audited.rows.map((r) => r.action)).toEqual(["alert.fired", "alert.resolved", "alert.fired"]);
  });

  it("evaluates in one process at a time", async () => {
    const now = new Date(Date.UTC(2026, 10, 29, 13));
    const [a, b] = await Promise.all([evaluateAlerts(db.pool, now), evaluateAlerts(db.pool, now)]);
    expect([a.evaluated, b.evaluated].filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM alert_event WHERE resolved_at IS NULL")).rows[0].n).toBe(1);
  });

  it("lets only supervisors edit rules over HTTP, audited", async () => {
    const { PATCH } = await import("../../app/api/alerts/[id]/route");
    const patch = async (role: "analyst" | "supervisor") => {
      const token = await makeToken(db, (await makeUser(db, role)).id);
      return PATCH(
        new Request("http://localhost/api/alerts/oldest-age", {
          method: "PATCH",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ threshold: 48 }),
        }),
        { params: Promise.resolve({ id: "oldest-age" }) },
      );
    };
    expect((await patch("analyst")).status).toBe(403);
    const res = await patch("supervisor");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { threshold: number }).threshold).toBe(48);
  });

  it("shows a webhook URL whole to those who manage alerts, only where it points to everyone else (it is a credential)", async () => {
    const { GET } = await import("../../app/api/alerts/route");
    const urlFor = async (role: "analyst" | "supervisor") => {
      const token = await makeToken(db, (await makeUser(db, role)).id);
      const res = await GET(new Request("http://localhost/api/alerts", { headers: { authorization: `Bearer ${token}` } }), {
        params: Promise.resolve({}),
      });
      return ((await res.json()) as { rules: { id: string; webhookUrl: string | null }[] }).rules.find((r) => r.id === "dlq-size")
        ?.webhookUrl;
    };
    expect(await urlFor("supervisor")).toBe(hookUrl);
    expect(await urlFor("analyst")).toBe(`${new URL(hookUrl).origin}/…`);
    // the overview every reader sees lists the rules too
    expect((await healthOverview(db.pool, UNSCOPED, new Date())).alerts.find((r) => r.id === "dlq-size")?.webhookUrl).toBe(
      `${new URL(hookUrl).origin}/…`,
    );
  });
});

describe("retention", () => {
  it("strips bodies of records settled or purged longer ago than the retention, keeping identity and timeline", async () => {
    const [old, recent, open] = (await ingest(db, [
      spatialEnvelope({ key: "ret-old", observedAt: 1, featureId: "r1" }),
      spatialEnvelope({ key: "ret-recent", observedAt: 2, featureId: "r2" }),
      spatialEnvelope({ key: "ret-open", observedAt: 3, featureId: "r3" }),
    ])) as [string, string, string];
    const now = new Date("2027-03-01T00:00:00Z");
    await db.pool.query("UPDATE dead_letter SET status = 'replayed', updated_at = $2 WHERE id = $1", [
      old,
      new Date("2026-11-01T00:00:00Z"),
    ]);
    await db.pool.query("UPDATE dead_letter SET status = 'replayed', updated_at = $2 WHERE id = $1", [
      recent,
      new Date("2027-02-01T00:00:00Z"),
    ]);
    await db.pool.query("UPDATE dead_letter SET updated_at = $2 WHERE id = $1", [open, new Date("2026-11-01T00:00:00Z")]);

    expect(await runRetention(db.pool, now, 90)).toEqual({ stripped: 1, more: false });
    const rows = (
      await db.pool.query(
        "SELECT id::text AS id, payload IS NULL AS gone, raw_envelope IS NULL AS raw_gone, idempotency_key FROM dead_letter WHERE id = ANY($1::bigint[]) ORDER BY id",
        [[old, recent, open]],
      )
    ).rows;
    expect(rows).toEqual([
      { id: old, gone: true, raw_gone: true, idempotency_key: "ret-old" },
      { id: recent, gone: false, raw_gone: false, idempotency_key: "ret-recent" },
      { id: open, gone: false, raw_gone: false, idempotency_key: "ret-open" },
    ]);
    expect(await runRetention(db.pool, now, 90)).toEqual({ stripped: 0, more: false }); // nothing twice
    const timeline = await recordTimeline(db.pool, UNSCOPED, old, null);
    expect(timeline.events.map((e) => e.action)).toEqual(["dead_letter.ingested", "dead_letter.retention_applied"]);
    expect(timeline.events[1]!.summary).toBe("Payload removed by retention (90 days after settlement)");
  });

  it("strips everything due in one run when it fits in the run's pages", async () => {
    await db.pool.query(`UPDATE dead_letter SET status = 'replayed', updated_at = '2026-01-01' WHERE payload IS NOT NULL`);
    const due = (await db.pool.query("SELECT count(*)::int AS n FROM dead_letter WHERE payload IS NOT NULL")).rows[0].n as number;
    expect(due).toBeGreaterThan(2);
    const r = await runRetention(db.pool, new Date("2027-03-01T00:00:00Z"), 90, { maxPages: 1 });
    expect(r.stripped).toBe(due); // fewer than a page: one page does it
  });
});

describe("overview and metrics", () => {
  it("summarizes counts, series, the oldest record and alerts", async () => {
    const o = await healthOverview(db.pool, UNSCOPED, new Date());
    expect(o.total).toBeGreaterThan(0);
    expect(o.hourly).toHaveLength(48);
    expect(o.daily).toHaveLength(30);
    expect(o.byKind.afc).toBe(3);
    expect(o.alerts.map((a) => a.id)).toEqual(["dlq-size", "oldest-age", "poison-growth", "rule-canary", "rule-refailure", "source-down"]);
    expect(o.hourly.reduce((n, p) => n + p.arrivals, 0)).toBeGreaterThan(0);
  });

  it("refuses a browser session (401 saying to use an API token), as a scrape is a machine with a token", async () => {
    const { GET } = await import("../../app/api/metrics/route");
    const { cookie } = await signIn((await makeUser(db, "supervisor")).email);
    expect(cookie).not.toBe("");
    const res = await GET(new Request("http://localhost/api/metrics", { headers: { cookie } }), { params: Promise.resolve({}) });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "unauthenticated", message: expect.stringContaining("API token") } });
  });

  it("serves Prometheus text to token holders only", async () => {
    const { GET } = await import("../../app/api/metrics/route");
    expect((await GET(new Request("http://localhost/api/metrics"), { params: Promise.resolve({}) })).status).toBe(401);
    const token = await makeToken(db, (await makeUser(db, "analyst")).id);
    const res = await GET(new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${token}` } }), {
      params: Promise.resolve({}),
    });
    expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    const text = await res.text();
    expect(text).toMatch(/^# HELP redrive_dead_letters /);
    expect(text).toContain('redrive_dead_letters_arrived_total{kind="afc"} 3');
    // The poison counter only grows: a record made poison, back to transient, then poison again counts twice.
    const poisoned = async () =>
      Number(
        /redrive_dead_letters_poisoned_total\{kind="afc"\} (\d+)/.exec(
          await (
            await GET(new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${token}` } }), {
              params: Promise.resolve({}),
            })
          ).text(),
        )?.[1] ?? 0,
      );
    expect(text).toContain("# TYPE redrive_dead_letters_poisoned_total counter");
    const before = await poisoned();
    const one = "(SELECT id FROM dead_letter WHERE kind = 'afc' AND failure_class <> 'poison' ORDER BY id LIMIT 1)";
    const { rows } = await db.pool.query<{ id: string }>(
      `UPDATE dead_letter SET failure_class = 'poison' WHERE id = ${one} RETURNING id::text AS id`,
    );
    expect(await poisoned()).toBe(before + 1);
    await db.pool.query("UPDATE dead_letter SET failure_class = 'transient_schema' WHERE id = $1", [rows[0]!.id]);
    expect(await poisoned()).toBe(before + 1);
    await db.pool.query("UPDATE dead_letter SET failure_class = 'poison', version = version + 1 WHERE id = $1", [rows[0]!.id]);
    await db.pool.query("UPDATE dead_letter SET version = version + 1 WHERE id = $1", [rows[0]!.id]); // still poison: no change
    expect(await poisoned()).toBe(before + 2);
    expect(text).toContain('redrive_alert_firing{rule="dlq-size"} 1');
    expect(text).toMatch(/redrive_oldest_unresolved_age_seconds \d+/);
  });
});
