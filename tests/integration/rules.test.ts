import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { getDeadLetter } from "../../lib/dead-letters/query/detail";
import { applyAction } from "../../lib/dead-letters/triage/apply-action";
import { pinRepair } from "../../lib/dead-letters/triage/approved-repair";
import { createRuleJob, getRuleJob, runRuleJob } from "../../lib/dead-letters/rules/rule-jobs";
import { resumedJobsSettled, resumeStalledRuleJobs } from "../../lib/ops/maintenance";
import { recordTimeline } from "../../lib/forensics/timeline";
import { approveRule, createRule, getRule, listRules, patchRule, type RuleContext } from "../../lib/rules/rules";
import { SKIP } from "../../lib/rules/match-rule";
import { getGeos } from "../../lib/spatial/geos";
import { ingest } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { STANDING_REPLAY } from "../../lib/replay/batch/standing-rules";
import { pentagram, SLIVER_BOWTIE, SQUARE } from "../support/rule-shapes";

// Triage rules against a real database: four eyes on the rule, decisions at arrival inside the store's transaction
// (and its one audit event), dry run = apply, versions inactive until approved, the kill switch, the audit trail.

setTestAuthEnv();

const SOURCE = "parcels-rules";
const bowtie = SLIVER_BOWTIE;
const star = pentagram();
const square = SQUARE;

let n = 0;
const envelope = (geometry: unknown, source = SOURCE) =>
  JSON.stringify({
    kind: "spatial",
    source,
    idempotency_key: `rules-${++n}`,
    observed_at: "2026-12-01T10:00:00Z",
    feature: { type: "Feature", id: `f-${n}`, properties: {}, geometry },
    dead_letter_reason: "TopologyException: Self-intersection",
  });

let db: Db;
let a: RuleContext;
let b: RuleContext;
let analyst: RuleContext;
let ruleId: string;

const ctx = (u: { id: string; email: string }, role: RuleContext["role"]): RuleContext => ({
  standing: STANDING_REPLAY,
  actor: { id: u.id, email: u.email, role },
  scope: UNSCOPED,
  role,
  requestId: "t",
  now: new Date(),
});
const run = (jobId: string) => runRuleJob(db.pool, ruleId, jobId, { now: () => new Date() });
const status = async (id: string) => (await getDeadLetter(db.pool, id)).status;

beforeAll(async () => {
  db = await testDb();
  a = ctx(await makeUser(db, "supervisor", { email: "ann@test.local" }), "supervisor");
  b = ctx(await makeUser(db, "supervisor", { email: "bob@test.local" }), "supervisor");
  analyst = ctx(await makeUser(db, "analyst"), "analyst");
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("a triage rule under four eyes", () => {
  let existing: string[];

  it("is drafted by a supervisor (not an analyst) and approved by another supervisor, not its drafter", async () => {
    // Records stored before the rule: rules act on them only through an apply.
    existing = await ingest(db, [envelope(bowtie), envelope(bowtie), envelope(bowtie), envelope(star), envelope(star), envelope(square)]);
    const body = {
      name: "bowtie-sliver",
      match: { source: SOURCE, repair: { maxAreaChange: 0.01 } },
      action: { type: "approve" as const },
    };
    await expect(createRule(db.pool, body, analyst)).rejects.toMatchObject({ code: "forbidden" });
    // A standing replay replays what the rule approves: a quarantining rule has none.
    const quarantining = { ...body, action: { type: "quarantine" as const, reason: "slivers" } };
    await expect(createRule(db.pool, { ...quarantining, replay: { sink: { type: "ledger" }, ratePerSecond: 5 } }, a)).rejects.toMatchObject(
      {
        code: "validation_failed",
        issues: [{ path: "replay" }],
      },
    );
    const rule = await createRule(db.pool, body, a);
    ruleId = rule.id;
    expect(rule).toMatchObject({ name: "bowtie-sliver", version: 1, status: "draft", activeVersion: null });
    await expect(createRule(db.pool, body, b)).rejects.toMatchObject({ code: "conflict" });
    await expect(approveRule(db.pool, ruleId, 1, a)).rejects.toMatchObject({ code: "forbidden", details: { rule: "four_eyes" } });
    await expect(approveRule(db.pool, ruleId, 1, analyst)).rejects.toMatchObject({ code: "forbidden" });
    await expect(approveRule(db.pool, ruleId, 2, b)).rejects.toMatchObject({ code: "conflict" });
    const approved = await approveRule(db.pool, ruleId, 1, b);
    expect(approved).toMatchObject({ status: "active", activeVersion: 1, approvedBy: { email: "bob@test.local" } });
    for (const id of existing) expect(await status(id)).toBe("pending");
  });

  it("dry-runs over the records stored now, and an apply then decides exactly what the dry run counted", async () => {
    const dry = await run(
      (
        await createRuleJob(
          db.pool,
          ruleId,
          {
            type: "dry_run",
            match: (await getRule(db.pool, ruleId, new Date(), UNSCOPED, STANDING_REPLAY)).match,
            action: { type: "approve" },
            version: 1,
          },
          b,
        )
      ).id,
    );
    expect(dry).toMatchObject({
      status: "completed",
      total: 6,
      processed: 6,
      decided: 4,
      skipped: 2,
      skippedReasons: { [SKIP.area(0.01)]: 2 },
      areaChanges: { "0": 1, "0.001": 3 },
    });
    expect(dry.samples.decided.sort()).toEqual([existing[0], existing[1], existing[2], existing[5]].sort());
    for (const id of existing) expect(await status(id)).toBe("pending");

    await expect(createRuleJob(db.pool, ruleId, { type: "apply", version: 2 }, b)).rejects.toMatchObject({ code: "conflict" });
    const applied = await run((await createRuleJob(db.pool, ruleId, { type: "apply", version: 1 }, b)).id);
    expect(applied).toMatchObject({ status: "completed", decided: dry.decided, skipped: dry.skipped, skippedReasons: dry.skippedReasons });
    expect(await Promise.all(existing.map(status))).toEqual(["approved", "approved", "approved", "pending", "pending", "approved"]);

    const detail = await getDeadLetter(db.pool, existing[0]!);
    expect(detail.decidedBy).toEqual({
      rule: { id: ruleId, name: "bowtie-sliver", version: 1 },
      approvers: ["ann@test.local", "bob@test.local"],
    });
    const geos = await getGeos();
    const pin = pinRepair(geos, detail.payload, { method: "linework", policy: "accept" });
    expect(pin.ok && detail.approvedRepair).toEqual(pin.ok ? pin.pin : null);
    // Each decision of an apply is its own audit event, the rule (name, version, approvers) its actor.
    const { rows } = await db.pool.query<{
      action: string;
      actor_id: string;
      actor_email: string;
      actor_role: string;
      after: Record<string, unknown>;
    }>(`SELECT action, actor_id, actor_email, actor_role, after FROM audit_event WHERE target_type = 'dead_letter' AND target_id = $1`, [
      existing[0],
    ]);
    expect(rows).toEqual([
      expect.objectContaining({
        action: "dead_letter.approved",
        actor_id: `rule:${ruleId}`,
        actor_email: "rule bowtie-sliver v1",
        actor_role: "rule",
        after: expect.objectContaining({
          approvers: ["ann@test.local", "bob@test.local"],
          rule: { id: ruleId, name: "bowtie-sliver", version: 1 },
        }),
      }),
    ]);
  });

  it("approves a new bow-tie in its store transaction, inside the batch's one audit event, and leaves a star pending", async () => {
    const before = Number((await db.pool.query<{ max: string }>("SELECT max(id)::text AS max FROM audit_event")).rows[0]!.max);
    const [bow, st] = await ingest(db, [envelope(bowtie), envelope(star)]);
    const detail = await getDeadLetter(db.pool, bow!);
    expect(detail).toMatchObject({
      status: "approved",
      version: 2,
      decidedBy: { rule: { id: ruleId, name: "bowtie-sliver", version: 1 } },
    });
    // Decided by the store step that created it: at the store's instant, and no event but the batch's.
    const row = await db.pool.query<{ same: boolean }>("SELECT created_at = updated_at AS same FROM dead_letter WHERE id = $1", [bow]);
    expect(row.rows[0]!.same).toBe(true);
    const geos = await getGeos();
    const pin = pinRepair(geos, detail.payload, { method: "linework", policy: "accept" });
    expect(pin.ok && pin.pin.digest).toBe(detail.approvedRepair?.digest);
    expect(await getDeadLetter(db.pool, st!)).toMatchObject({ status: "pending", decidedBy: null });

    const events = await db.pool.query<{ action: string; target_id: string | null; after: { count: number; rules?: unknown[] } }>(
      "SELECT action, target_id, after FROM audit_event WHERE id > $1 ORDER BY id",
      [before],
    );
    expect(events.rows.map((e) => e.action)).toEqual(["dead_letter.ingested"]);
    expect(events.rows[0]!.after.rules).toEqual([
      {
        id: bow,
        status: "approved",
        repair: detail.approvedRepair,
        rule: { id: ruleId, name: "bowtie-sliver", version: 1 },
        approvers: ["ann@test.local", "bob@test.local"],
      },
    ]);
    const timeline = await recordTimeline(db.pool, UNSCOPED, bow!, null);
    expect(timeline.events.map((e) => [e.action, e.actor.email])).toEqual([
      ["dead_letter.ingested", "system"],
      ["dead_letter.approved", "rule bowtie-sliver v1"],
    ]);
    const stats = (await listRules(db.pool, new Date(), UNSCOPED, STANDING_REPLAY)).find((r) => r.id === ruleId)!.stats;
    expect(stats).toMatchObject({ decidedToday: 5, decidedThisWeek: 5 });
    expect(stats.lastMatchAt).not.toBeNull();
  });

  it("lets an analyst undo a rule's decision like their own", async () => {
    const id = existing[1]!;
    const d = await getDeadLetter(db.pool, id);
    const reopened = await applyAction(
      db.pool,
      id,
      { action: "reopen", version: d.version, reason: "undo of approve" },
      {
        ...analyst,
        scope: UNSCOPED,
        requestId: "t",
        canOverrideIdentity: false,
      },
    );
    expect(reopened).toMatchObject({ status: "pending", decidedBy: null, approvedRepair: null });
  });

  it("a changed rule decides nothing until its new version is approved", async () => {
    const changed = await patchRule(db.pool, ruleId, { match: { source: SOURCE, repair: { maxAreaChange: 0.6 } } }, a);
    expect(changed).toMatchObject({ status: "draft", version: 2, activeVersion: null });
    const [pendingStar] = await ingest(db, [envelope(star)]);
    expect(await status(pendingStar!)).toBe("pending");
    await expect(approveRule(db.pool, ruleId, 1, b)).rejects.toMatchObject({ code: "conflict" });
    await approveRule(db.pool, ruleId, 2, b);
    const [decided] = await ingest(db, [envelope(star)]);
    expect(await getDeadLetter(db.pool, decided!)).toMatchObject({ status: "approved", decidedBy: { rule: { version: 2 } } });
  });

  it("the kill switch takes effect for the next arrival; enabling again needs a second supervisor", async () => {
    await expect(patchRule(db.pool, ruleId, { enabled: false }, analyst)).rejects.toMatchObject({ code: "forbidden" });
    expect(await patchRule(db.pool, ruleId, { enabled: false }, a)).toMatchObject({ status: "disabled", activeVersion: null });
    const [next] = await ingest(db, [envelope(bowtie)]);
    expect(await status(next!)).toBe("pending");
    await expect(createRuleJob(db.pool, ruleId, { type: "apply", version: 2 }, b)).rejects.toMatchObject({ code: "conflict" });

    expect(await patchRule(db.pool, ruleId, { enabled: true }, a)).toMatchObject({ status: "draft", version: 3 });
    await expect(approveRule(db.pool, ruleId, 3, a)).rejects.toMatchObject({ details: { rule: "four_eyes" } });
    expect(await approveRule(db.pool, ruleId, 3, b)).toMatchObject({ status: "active", activeVersion: 3 });
    const [after] = await ingest(db, [envelope(bowtie)]);
    expect(await getDeadLetter(db.pool, after!)).toMatchObject({ status: "approved", decidedBy: { rule: { version: 3 } } });
  });

  it("a dry run whose server died is taken over by another server's housekeeping, and counts the same", async () => {
    const spec = () => ({
      type: "dry_run" as const,
      match: { kind: "spatial" as const },
      action: { type: "leave" as const },
      version: null,
    });
    const direct = await run((await createRuleJob(db.pool, ruleId, spec(), b)).id);
    const orphan = await createRuleJob(db.pool, ruleId, spec(), b);
    // Held by a live runner: nobody else takes it.
    await db.pool.query(`UPDATE rule_job SET locked_by = 'other-host:1:live', heartbeat_at = now() WHERE id = $1`, [orphan.id]);
    expect(await resumeStalledRuleJobs({ pool: db.pool }, new Date(), () => {})).not.toContain(orphan.id);
    // Its server was killed: the heartbeat goes stale, and the next round of any server's housekeeping resumes it.
    await db.pool.query(`UPDATE rule_job SET heartbeat_at = now() - interval '1 minute' WHERE id = $1`, [orphan.id]);
    expect(await resumeStalledRuleJobs({ pool: db.pool }, new Date(), () => {})).toContain(orphan.id);
    await resumedJobsSettled();
    const resumed = await getRuleJob(db.pool, ruleId, orphan.id, UNSCOPED);
    expect(resumed).toMatchObject({ status: "completed", total: direct.total, processed: direct.processed, skipped: direct.skipped });
    // A second runner finds the job held by a live one and leaves it alone.
    const again = await createRuleJob(db.pool, ruleId, spec(), b);
    await db.pool.query(`UPDATE rule_job SET locked_by = 'other-host:1:live', heartbeat_at = now() WHERE id = $1`, [again.id]);
    const loser = await runRuleJob(db.pool, ruleId, again.id, { now: () => new Date(), runner: "me" });
    expect(loser).toMatchObject({ status: "running", processed: 0 });
  });

  it("versions are immutable in the database", async () => {
    await expect(
      db.pool.query(`UPDATE rule_version SET match = '{"kind":"afc"}' WHERE rule_id = $1 AND version = 1`, [ruleId]),
    ).rejects.toThrow(/immutable/);
    await expect(db.pool.query(`DELETE FROM rule_version WHERE rule_id = $1`, [ruleId])).rejects.toThrow(/DELETE refused/);
  });

  it("the audit trail names the rule, its versions and approvers", async () => {
    const { rows } = await db.pool.query<{ action: string; actor_email: string; after: Record<string, unknown> }>(
      "SELECT action, actor_email, after FROM audit_event WHERE target_type = 'rule' AND target_id = $1 ORDER BY id",
      [ruleId],
    );
    expect(rows.map((r) => [r.action, r.actor_email, r.after.version ?? null])).toEqual([
      ["rule.created", "ann@test.local", 1],
      ["rule.approved", "bob@test.local", 1],
      ["rule.apply_started", "bob@test.local", 1],
      ["rule.changed", "ann@test.local", 2],
      ["rule.approved", "bob@test.local", 2],
      ["rule.disabled", "ann@test.local", null],
      ["rule.enable_requested", "ann@test.local", 3],
      ["rule.approved", "bob@test.local", 3],
    ]);
    expect(rows[1]!.after).toMatchObject({ name: "bowtie-sliver", approvers: ["ann@test.local", "bob@test.local"] });
  });
});
