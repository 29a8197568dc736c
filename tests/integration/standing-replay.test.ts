import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { getDeadLetter } from "../../lib/dead-letters/query/detail";
import { createRuleJob, runRuleJob } from "../../lib/dead-letters/rules/rule-jobs";
import { evaluateRuleAlerts } from "../../lib/rules/rule-alerts";
import { startWorker, type WorkerHandle } from "../../lib/replay/engine/worker";
import { MAX_SPREAD_MS } from "../../lib/replay/pacing/gcra";
import { approveRule, createRule, getRule, patchRule, resumeRule, type RuleContext } from "../../lib/rules/rules";
import type { z } from "zod";
import { CreateRuleBodySchema, PatchRuleBodySchema, type CreateRuleBody, type RuleView } from "../../lib/rules/rule-schemas";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { STANDING_REPLAY } from "../../lib/replay/batch/standing-rules";
import { EPOCH, ingest, waitFor } from "../replay/fixtures";
import { startSinkServer, type SinkServer } from "../replay/sink-server";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Standing replays of triage rules against a real database, a real replay worker and a real HTTP receiver on
// loopback: the approvals of an approved rule version flow into its one batch, paced, with the version's approval
// as the batch's four eyes; its canary pauses the flow on a failing sink and raises the rule's alert until a
// supervisor resumes; a changed replay is a new version that replays nothing until approved; records the rule
// decided that fail again after their replay count against it and raise its re-failure alert.

setTestAuthEnv();

let db: Db;
let a: RuleContext;
let b: RuleContext;
let analyst: RuleContext;
const workers: WorkerHandle[] = [];
const servers: SinkServer[] = [];

const ctx = (u: { id: string; email: string }, role: RuleContext["role"]): RuleContext => ({
  standing: STANDING_REPLAY,
  actor: { id: u.id, email: u.email, role },
  scope: UNSCOPED,
  role,
  requestId: "t",
  now: new Date(),
});
const at = (c: RuleContext): RuleContext => ({ ...c, now: new Date() });

beforeAll(async () => {
  db = await testDb();
  a = ctx(await makeUser(db, "supervisor", { email: "ann-standing@test.local" }), "supervisor");
  b = ctx(await makeUser(db, "supervisor", { email: "bob-standing@test.local" }), "supervisor");
  analyst = ctx(await makeUser(db, "analyst"), "analyst");
  // Retries wait seconds, as a real sink's would: the canary's verdict comes from the first answers, not from a
  // record's retry budget spent within a page or two on a loaded machine.
  workers.push(startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 50, backoff: { baseMs: 2000, maxMs: 4000 } }));
});

afterAll(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await db.pool.end();
  await closeDb();
});

let tap = 0;
/** An AFC tap of `source` (its event id makes the key); valid, so the replay delivers it. */
const envelope = (source: string, eventId = `${source}-${++tap}`) =>
  JSON.stringify({
    kind: "afc",
    source,
    raw_payload: {
      event_id: eventId,
      device_id: `${source}-device-${tap}`,
      fare_amount_cents: 250,
      tap_timestamp: new Date((EPOCH + tap) * 1000).toISOString(),
    },
    failure_reason: "downstream timeout",
    retry_count: 0,
  });

/** A rule's body as a route parses it (the sink's defaults applied). */
const rule = (source: string, replay: z.input<typeof CreateRuleBodySchema>["replay"]): CreateRuleBody =>
  CreateRuleBodySchema.parse({ name: source, match: { kind: "afc", source }, action: { type: "approve" }, ...(replay ? { replay } : {}) });

const view = (id: string): Promise<RuleView> => getRule(db.pool, id, new Date(), UNSCOPED, STANDING_REPLAY);

async function batchRow(id: string) {
  const { rows } = await db.pool.query<{
    status: string;
    created_by_id: string;
    approved_by_id: string | null;
    rate_per_second: number;
    total: number;
    rule_version: number;
  }>(`SELECT status::text AS status, created_by_id, approved_by_id, rate_per_second, total, rule_version FROM replay_batch WHERE id = $1`, [
    id,
  ]);
  return rows[0]!;
}

async function openAlerts(alert: string, ruleId: string) {
  const { rows } = await db.pool.query<{ message: string; value: number }>(
    `SELECT message, value FROM alert_event WHERE rule_id = $1 AND triage_rule_id = $2 AND resolved_at IS NULL`,
    [alert, ruleId],
  );
  return rows;
}

describe("a standing replay", () => {
  let healthy: SinkServer;
  let healthyRule: string;
  let firstBatch: string;
  let delivered: string[];
  let deliveredTexts: string[];

  it("delivers the records an approved rule version approves at arrival, paced, in a batch the version's approval approved", async () => {
    healthy = await startSinkServer();
    servers.push(healthy);
    // The sink is checked as a batch's is: a sink of no known type, or an HTTP sink without a URL, is a 422 naming the field.
    await expect(createRule(db.pool, rule("standing-ok", { sink: "kafka", ratePerSecond: 5 }), at(a))).rejects.toMatchObject({
      code: "validation_failed",
      issues: [expect.objectContaining({ path: expect.stringMatching(/^replay\.sink/) })],
    });
    await expect(createRule(db.pool, rule("standing-ok", { sink: "http", ratePerSecond: 5 }), at(a))).rejects.toMatchObject({
      code: "validation_failed",
      issues: [expect.objectContaining({ path: "replay.sink.url" })],
    });
    const drafted = await createRule(db.pool, rule("standing-ok", { sink: { type: "http", url: healthy.url }, ratePerSecond: 5 }), at(a));
    healthyRule = drafted.id;
    // The approval page shows what the approver agrees to: the sink and the rate.
    expect(drafted.replay).toMatchObject({ sink: { type: "http", url: healthy.url }, ratePerSecond: 5 });
    expect(drafted.replay!.sinkText).toContain(`HTTP POST ${healthy.url}`);
    expect(drafted.standing).toBeNull();
    // Nothing flows before the second supervisor's approval: arrivals stay pending.
    const [early] = await ingest(db, [envelope("standing-ok")]);
    expect((await getDeadLetter(db.pool, early!)).status).toBe("pending");

    const approved = await approveRule(db.pool, healthyRule, 1, at(b));
    expect(approved.standing).toMatchObject({ version: 1, status: "running", open: true, canary: null });
    firstBatch = approved.standing!.batchId;
    const batch = await batchRow(firstBatch);
    expect(batch).toMatchObject({ status: "running", created_by_id: a.actor.id, approved_by_id: b.actor.id, rate_per_second: 5 });
    const { rows: audit } = await db.pool.query<{ action: string; reason: string | null; after: { standing?: { approvers: string[] } } }>(
      `SELECT action, reason, after FROM audit_event WHERE target_type = 'replay_batch' AND target_id = $1 ORDER BY id`,
      [firstBatch],
    );
    expect(audit.map((e) => e.action)).toEqual(["replay_batch.create", "replay_batch.start"]);
    expect(audit[0]!.reason).toContain("approved by the rule version's four eyes (ann-standing@test.local and bob-standing@test.local)");
    expect(audit[0]!.after.standing?.approvers).toEqual(["ann-standing@test.local", "bob-standing@test.local"]);

    deliveredTexts = Array.from({ length: 6 }, () => envelope("standing-ok"));
    delivered = await ingest(db, deliveredTexts);
    await waitFor("6 deliveries", async () => healthy.deliveries.filter((d) => d.action === "applied").length >= 6, 20_000);
    const times = healthy.deliveries.map((d) => d.arrivedAt).sort((x, y) => x - y);
    // 5 per second: six sends span five intervals of 200 ms, less what a slot may land late (MAX_SPREAD_MS) — not
    // the few milliseconds an unpaced drain takes.
    expect(times[times.length - 1]! - times[0]!).toBeGreaterThanOrEqual(1000 - MAX_SPREAD_MS);
    await waitFor("records replayed", async () => {
      const statuses = await Promise.all(delivered.map(async (id) => (await getDeadLetter(db.pool, id)).status));
      return statuses.every((s) => s === "replayed");
    });
    // The record decided before the approval is not the flow's; the batch stays open for the next arrivals.
    expect(healthy.deliveries).toHaveLength(6);
    await new Promise((r) => setTimeout(r, 300));
    expect((await batchRow(firstBatch)).status).toBe("running");
    const stats = (await view(healthyRule)).stats.replay;
    expect(stats).toEqual({
      joined: 6,
      queued: 6,
      waiting: 0,
      sending: 0,
      retrying: 0,
      sent: 6,
      applied: 6,
      duplicate: 0,
      failed: 0,
      dropped: 0,
      cancelled: 0,
      notReplayable: 0,
      failedAfterReplay: 0,
    });

    // The record stored before the approval joins the flow when an apply decides it.
    const job = await createRuleJob(db.pool, healthyRule, { type: "apply", version: 1 }, at(b));
    expect(await runRuleJob(db.pool, healthyRule, job.id, { now: () => new Date() })).toMatchObject({
      status: "completed",
      decided: 1,
    });
    await waitFor("the applied record replayed", async () => (await getDeadLetter(db.pool, early!)).status === "replayed", 10_000);
    expect(healthy.deliveries).toHaveLength(7);
    expect((await view(healthyRule)).stats.replay).toMatchObject({ queued: 7, applied: 7 });
  });

  it("is part of the rule version: a changed replay is a new version that replays nothing until a second supervisor approves it", async () => {
    await expect(patchRule(db.pool, healthyRule, { action: { type: "quarantine", reason: "no" } }, at(a))).rejects.toMatchObject({
      code: "validation_failed",
      issues: [{ path: "replay" }],
    });
    const changed = await patchRule(
      db.pool,
      healthyRule,
      PatchRuleBodySchema.parse({ replay: { sink: { type: "http", url: healthy.url }, ratePerSecond: 20 } }),
      at(a),
    );
    expect(changed).toMatchObject({ status: "draft", version: 2, activeVersion: null, replay: { ratePerSecond: 20 } });
    expect(changed.versions?.map((v) => v.replay?.ratePerSecond)).toEqual([20, 5]);
    // Version 1's batch no longer takes records; drained, it completes.
    await waitFor("v1's batch completed", async () => (await batchRow(firstBatch)).status === "completed", 10_000);
    const [waiting] = await ingest(db, [envelope("standing-ok")]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await getDeadLetter(db.pool, waiting!)).status).toBe("pending");
    expect(healthy.deliveries).toHaveLength(7);

    await expect(approveRule(db.pool, healthyRule, 2, at(a))).rejects.toMatchObject({ code: "forbidden" });
    const approved = await approveRule(db.pool, healthyRule, 2, at(b));
    expect(approved.standing).toMatchObject({ version: 2, status: "running", open: true });
    expect(approved.standing!.batchId).not.toBe(firstBatch);
    expect((await batchRow(approved.standing!.batchId)).rate_per_second).toBe(20);
    const [later] = await ingest(db, [envelope("standing-ok")]);
    await waitFor("the v2 arrival delivered", async () => (await getDeadLetter(db.pool, later!)).status === "replayed", 10_000);
    expect(healthy.deliveries).toHaveLength(8);
    expect((await view(healthyRule)).stats.replay).toMatchObject({ queued: 8, applied: 8 });
  });

  it("counts records the rule decided that fail again after their replay, and raises the rule's re-failure alert", async () => {
    const before = await evaluateRuleAlerts(db.pool, new Date());
    expect(before.fired.filter((m) => m.includes("standing-ok"))).toEqual([]);
    // A consumer rejects two replayed records again: their keys arrive once more.
    await ingest(db, deliveredTexts.slice(0, 2));
    for (const id of delivered.slice(0, 2)) expect((await getDeadLetter(db.pool, id)).status).toBe("pending");
    expect((await view(healthyRule)).stats.replay.failedAfterReplay).toBe(2);

    const round = await evaluateRuleAlerts(db.pool, new Date());
    expect(round.fired).toEqual([expect.stringContaining("rule standing-ok: 2 of its records failed again after their replay")]);
    expect(await openAlerts("rule-refailure", healthyRule)).toEqual([expect.objectContaining({ value: 2 })]);
    // Once per breach: the next round opens nothing new.
    expect((await evaluateRuleAlerts(db.pool, new Date())).fired).toEqual([]);
    expect(await openAlerts("rule-refailure", healthyRule)).toHaveLength(1);
    // Past the window (60 min), the alert resolves.
    const later = await evaluateRuleAlerts(db.pool, new Date(Date.now() + 61 * 60_000));
    expect(later.resolved).toBeGreaterThanOrEqual(1);
    expect(await openAlerts("rule-refailure", healthyRule)).toEqual([]);
  });

  it("pauses on a failing sink after its canary's first items, raises the rule's alert, and flows again once a supervisor resumes", async () => {
    let failing = true;
    const sink = await startSinkServer({ decide: () => (failing ? { status: 500 } : null) });
    servers.push(sink);
    const drafted = await createRule(
      db.pool,
      rule("standing-canary", { sink: { type: "http", url: sink.url }, ratePerSecond: 50, canary: { count: 3, maxFailureRate: 0.34 } }),
      at(a),
    );
    expect(drafted.replay).toMatchObject({ ratePerSecond: 50, canary: { count: 3, maxFailureRate: 0.34 } });
    const approved = await approveRule(db.pool, drafted.id, 1, at(b));
    expect(approved.standing?.canary).toEqual({ count: 3, maxFailureRate: 0.34, state: "watching" });
    const ids = await ingest(
      db,
      Array.from({ length: 5 }, () => envelope("standing-canary")),
    );
    const paused = await waitFor(
      "the canary to pause the flow",
      async () => {
        const r = await view(drafted.id);
        return r.standing?.status === "paused" ? r : null;
      },
      20_000,
    );
    expect(paused.standing).toMatchObject({ open: true, canary: { state: "tripped" } });
    expect(paused.standing!.statusReason).toContain(
      "paused by its canary: 3 of the first 3 items sent failed (100%, above 34%; an item waiting for its retry counts as failed)",
    );
    const alerts = await openAlerts("rule-canary", drafted.id);
    expect(alerts).toEqual([expect.objectContaining({ value: 3 })]);
    expect(alerts[0]!.message).toContain("rule standing-canary v1");
    // Paused means paused: once the requests in flight at the pause have landed, nothing more reaches the sink — not
    // even the failed items' retries, due within 2 s (the worker's backoff).
    await new Promise((r) => setTimeout(r, 300));
    const sent = sink.deliveries.length;
    expect(sent).toBeLessThanOrEqual(5);
    await new Promise((r) => setTimeout(r, 2_200));
    expect(sink.deliveries.length).toBe(sent);
    // The outcomes say what the canary saw: what was sent waits for its retry (a failure to the canary), nothing
    // counts as sent that was not, and each item that joined is in exactly one state.
    const held = (await view(drafted.id)).stats.replay;
    expect(held).toMatchObject({ joined: 5, sending: 0, applied: 0, duplicate: 0, failed: 0, dropped: 0, cancelled: 0, notReplayable: 0 });
    expect(held.retrying).toBeGreaterThanOrEqual(3);
    expect(held.sent).toBe(held.retrying);
    expect(held.waiting + held.retrying).toBe(5);
    // The housekeeping round leaves an alert whose batch is still held by its canary open.
    await evaluateRuleAlerts(db.pool, new Date());
    expect(await openAlerts("rule-canary", drafted.id)).toHaveLength(1);

    // A supervisor resumes (an analyst may not); the canary watches again from now, the alert resolves.
    await expect(resumeRule(db.pool, drafted.id, at(analyst))).rejects.toMatchObject({ code: "forbidden" });
    failing = false;
    const resumed = await resumeRule(db.pool, drafted.id, at(b));
    expect(resumed.standing).toMatchObject({ status: "running", canary: { state: "watching" } });
    expect(await openAlerts("rule-canary", drafted.id)).toEqual([]);
    await expect(resumeRule(db.pool, drafted.id, at(b))).rejects.toMatchObject({ code: "conflict" });
    await waitFor(
      "every record replayed",
      async () => (await Promise.all(ids.map(async (id) => (await getDeadLetter(db.pool, id)).status))).every((s) => s === "replayed"),
      20_000,
    );
    const after = await view(drafted.id);
    expect(after.standing).toMatchObject({ status: "running", canary: { state: "passed" } });
    expect(after.stats.replay).toMatchObject({ joined: 5, queued: 5, waiting: 0, retrying: 0, sent: 5, applied: 5, failed: 0 });
  });

  it("counts the approvals a back-to-origin flow cannot take (no broker source) as not replayable, and says so", async () => {
    const drafted = await createRule(db.pool, rule("standing-origin", { sink: { type: "origin" }, ratePerSecond: 5 }), at(a));
    // The rule's page lists no destinations: its text does not point at any.
    expect(drafted.replay!.sinkText).not.toContain("listed above");
    expect(drafted.replay!.sinkText).toContain("a record approved without one cannot go back");
    await approveRule(db.pool, drafted.id, 1, at(b));
    const ids = await ingest(db, [envelope("standing-origin"), envelope("standing-origin")]);
    for (const id of ids) expect((await getDeadLetter(db.pool, id)).status).toBe("approved");
    expect((await view(drafted.id)).stats.replay).toMatchObject({ joined: 0, waiting: 0, sent: 0, notReplayable: 2 });
  });

  it("stops with the kill switch: its running batch pauses with the rule", async () => {
    const disabled = await patchRule(db.pool, healthyRule, { enabled: false }, at(b));
    expect(disabled.status).toBe("disabled");
    expect(disabled.standing).toMatchObject({ status: "paused", open: false });
    expect(disabled.standing!.statusReason).toContain("disabled by bob-standing@test.local");
  });
});
