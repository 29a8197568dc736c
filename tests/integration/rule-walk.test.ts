import { STANDING_REPLAY } from "../../lib/replay/batch/standing-rules";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { closeDb, type Db } from "../../lib/db/client";
import { ingest as ingestArrival } from "../../lib/dead-letters/ingest/ingest";
import { otherRepair } from "../../lib/dead-letters/ingest/rule-facts";
import { getDeadLetter } from "../../lib/dead-letters/query/detail";
import { createRuleJob, runRuleJob } from "../../lib/dead-letters/rules/rule-jobs";
import { pinRepair } from "../../lib/dead-letters/triage/approved-repair";
import { areaBucket, matchRule, SKIP, type RuleAnalysis } from "../../lib/rules/match-rule";
import type { RuleAction, RuleCounts, RuleJobView, RuleMatch } from "../../lib/rules/rule-schemas";
import { approveRule, createRule, type RuleContext } from "../../lib/rules/rules";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { getGeos } from "../../lib/spatial/geos";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// A rule judging another repair than the stored one walks the records page by page, each page read and its GEOS
// queued on the ingest threads while the one before is saved (rule-jobs.ts pageWalk, normalize-pool.ts ruleQueue).
// Over several pages of records of different shapes, its dry run must count what judging each record alone, in
// id order, counts — and its apply must decide those records, pinned to that repair.

setTestAuthEnv();

const SOURCE = "parcels-walk";
/** More than two pages (1000 records each) of the job once the seventh without a geometry is quarantined. */
const COUNT = 2345;

const ring = (points: number[][]) => [...points, points[0]!];
const star = (s: number) => ({
  type: "Polygon",
  coordinates: [
    ring(
      [0, 2, 4, 1, 3].map((k) => [
        2.35 + s * Math.cos(Math.PI / 2 + (k * 2 * Math.PI) / 5),
        48.85 + s * Math.sin(Math.PI / 2 + (k * 2 * Math.PI) / 5),
      ]),
    ),
  ],
});
/**
 * Seven shapes, in turn, whose verdicts under the structure repair differ (decided at two area changes, a type
 * change, an unknown area change, nothing delivered): seven does not divide a chunk or a page, so a result handed
 * back to the wrong record would change the counts.
 */
const SHAPES: unknown[] = [
  star(0.01),
  {
    type: "Polygon",
    coordinates: [
      ring([
        [2, 48],
        [2.01, 48],
        [2.01, 48.01],
        [2, 48.01],
      ]),
    ],
  },
  {
    type: "Polygon",
    coordinates: [
      ring([
        [2, 48],
        [2.01, 48.01],
        [2.01, 48],
        [2, 48.01],
      ]),
    ],
  },
  star(0.02),
  {
    type: "Polygon",
    coordinates: [
      ring([
        [2, 48],
        [2.01, 48],
        [2.01, 48.01],
        [2, 48.01],
      ]),
      ring([
        [1.99, 47.99],
        [1.99, 48.02],
        [2.02, 48.02],
        [2.02, 47.99],
      ]),
    ],
  },
  {
    type: "Polygon",
    coordinates: [
      ring([
        [2, 48],
        [2.02, 48],
        [2.02, 48.01],
        [2.015, 48.02],
        [2.01, 47.99],
        [2, 48.01],
      ]),
    ],
  },
  null,
];

let db: Db;
let supervisor: RuleContext;
let approver: RuleContext;

const ctx = (u: { id: string; email: string }): RuleContext => ({
  actor: { id: u.id, email: u.email, role: "supervisor" },
  scope: UNSCOPED,
  role: "supervisor",
  requestId: "t",
  now: new Date(),
  standing: STANDING_REPLAY,
});

beforeAll(async () => {
  db = await testDb();
  supervisor = ctx(await makeUser(db, "supervisor", { email: "ann@test.local" }));
  approver = ctx(await makeUser(db, "supervisor", { email: "bob@test.local" }));
  async function* records() {
    for (let i = 0; i < COUNT; i++) {
      const text = JSON.stringify({
        kind: "spatial",
        source: SOURCE,
        idempotency_key: `walk-${i}`,
        observed_at: "2026-12-01T10:00:00Z",
        feature: { type: "Feature", id: `f-${i}`, properties: { i }, geometry: SHAPES[i % SHAPES.length] },
        dead_letter_reason: "TopologyException: Self-intersection",
      });
      yield { index: i, text };
    }
  }
  const context = { pool: db.pool, actor: SYSTEM_ACTOR, requestId: "test", batchSize: 500 };
  for await (const results of await ingestArrival({ via: "records", records: records() }, context)) {
    for (const r of results) if (r.status !== "created") throw new Error(`not stored: ${JSON.stringify(r)}`);
  }
  // Every way a record reaches its verdict without the other repair, or with it on an unusual payload, a few dozen
  // times each among the pages: an approval skips poison; no analysis; a payload that is no object, or no Feature
  // (a type in another case), or a Feature without a geometry (of an invalid input: a valid one's analysis stands for
  // its geometry, which an apply pins); a stored analysis of the judged method already
  // (in the first half: its pin is the stored repair's, which the apply's pin check below does not look at).
  await db.pool.query(
    `WITH p AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM dead_letter WHERE source = $1 AND status = 'pending')
     UPDATE dead_letter d SET
       failure_class = CASE WHEN p.n % 50 = 10 THEN 'poison'::"FailureClass" ELSE d.failure_class END,
       analysis = CASE WHEN p.n % 50 = 11 THEN NULL
         WHEN p.n % 50 = 15 AND p.n < 1000 THEN jsonb_set(d.analysis, '{method}', '"structure"') ELSE d.analysis END,
       payload = CASE WHEN d.analysis->>'outcome' = 'valid' THEN d.payload
         WHEN p.n % 50 = 12 THEN '[1, 2]'::jsonb WHEN p.n % 50 = 13 THEN jsonb_set(d.payload, '{type}', '"feature"')
         WHEN p.n % 50 = 14 THEN d.payload - 'geometry' ELSE d.payload END
     FROM p WHERE d.id = p.id AND p.n % 50 BETWEEN 10 AND 15`,
    [SOURCE],
  );
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

/** A job's counts, as expectedCounts gives them. */
const countsOf = (job: RuleJobView): RuleCounts => ({
  decided: job.decided,
  skipped: job.skipped,
  skippedReasons: job.skippedReasons,
  samples: job.samples,
  areaChanges: job.areaChanges,
  notReplayableToOrigin: job.notReplayableToOrigin,
});

/** The dry run's counts as judging each record alone, on this thread, in id order, gives them. */
async function expectedCounts(match: RuleMatch, action: RuleAction): Promise<{ counts: RuleCounts; decided: string[] }> {
  const geos = await getGeos();
  const { rows } = await db.pool.query<{
    id: string;
    status: "pending";
    payload: unknown;
    analysis: RuleAnalysis;
    failure_class: "transient";
  }>(
    `SELECT d.id::text AS id, d.status, d.payload, d.analysis, d.failure_class FROM dead_letter d
     WHERE d.source = $1 AND d.status = 'pending' ORDER BY d.id`,
    [SOURCE],
  );
  const counts: RuleCounts = {
    decided: 0,
    skipped: 0,
    skippedReasons: {},
    samples: { decided: [], skipped: [] },
    areaChanges: {},
    notReplayableToOrigin: null,
  };
  const decided: string[] = [];
  for (const r of rows) {
    const facts = {
      kind: "spatial" as const,
      status: r.status,
      source: SOURCE,
      originSource: null,
      reasonGroup: "",
      reason: "",
      failureClass: r.failure_class,
      analysis: r.analysis,
    };
    let outcome = matchRule({ match, action }, facts);
    if (outcome.kind === "needs_analysis") {
      const other = otherRepair(r.payload, outcome, geos);
      outcome = other ? matchRule({ match, action }, facts, other.analysis) : { kind: "skip", reason: "payload is not a GeoJSON Feature" };
    }
    if (outcome.kind === "skip") {
      counts.skipped++;
      counts.skippedReasons[outcome.reason] = (counts.skippedReasons[outcome.reason] ?? 0) + 1;
      if (counts.samples.skipped.length < 10) counts.samples.skipped.push({ id: r.id, reason: outcome.reason });
    } else if (outcome.kind === "decide") {
      counts.decided++;
      decided.push(r.id);
      if (counts.samples.decided.length < 10) counts.samples.decided.push(r.id);
      if (action.type === "approve") {
        const bucket = areaBucket(outcome.areaChange);
        counts.areaChanges[bucket] = (counts.areaChanges[bucket] ?? 0) + 1;
      }
    }
  }
  return { counts, decided };
}

describe("a rule judging another repair, walked over several pages", () => {
  it("dry-runs a quarantine under another policy (the stored method's) to the counts of judging each record alone", async () => {
    const byPolicy: RuleMatch = { source: SOURCE, repair: { policy: "largest-part", sameType: true, maxDroppedParts: 0 } };
    const quarantine: RuleAction = { type: "quarantine", reason: "a walk's quarantine" };
    const expected = await expectedCounts(byPolicy, quarantine);
    expect(expected.counts.decided).toBeGreaterThan(COUNT / 4);
    expect(Object.keys(expected.counts.skippedReasons).length).toBeGreaterThanOrEqual(3);
    const rule = await createRule(db.pool, { name: "walk-largest-part", match: byPolicy, action: quarantine }, supervisor);
    const dry = await createRuleJob(db.pool, rule.id, { type: "dry_run", match: byPolicy, action: quarantine, version: 1 }, supervisor);
    const done = await runRuleJob(db.pool, rule.id, dry.id, { now: () => new Date() });
    expect(done).toMatchObject({ status: "completed", processed: expected.counts.decided + expected.counts.skipped });
    expect(countsOf(done)).toEqual(expected.counts);
  });

  const match: RuleMatch = { source: SOURCE, repair: { method: "structure", sameType: true, maxAreaChange: 0.3 } };
  const action: RuleAction = { type: "approve" };

  it("dry-runs to the counts of judging each record alone, and applies them pinned to that repair", async () => {
    const expected = await expectedCounts(match, action);
    // Records without a geometry were quarantined at arrival: the walk covers the pending ones, over three pages.
    const pending = expected.counts.decided + expected.counts.skipped;
    expect(pending).toBeGreaterThan(2000);
    // The shapes give the walk several verdicts to keep apart, each a few hundred records.
    expect(expected.counts.decided).toBeGreaterThan(COUNT / 4);
    expect(Object.keys(expected.counts.skippedReasons)).toEqual(
      expect.arrayContaining([SKIP.poison, SKIP.noAnalysis, SKIP.dropped, "payload is not a GeoJSON Feature"]),
    );
    expect(Object.keys(expected.counts.areaChanges).length).toBeGreaterThanOrEqual(2);

    const rule = await createRule(db.pool, { name: "walk-structure", match, action }, supervisor);
    const dry = await createRuleJob(db.pool, rule.id, { type: "dry_run", match, action, version: 1 }, supervisor);
    const done = await runRuleJob(db.pool, rule.id, dry.id, { now: () => new Date() });
    expect(done).toMatchObject({ status: "completed", total: pending, processed: pending });
    expect(countsOf(done)).toEqual(expected.counts);

    await approveRule(db.pool, rule.id, 1, approver);
    const apply = await createRuleJob(db.pool, rule.id, { type: "apply", version: 1 }, supervisor);
    const applied = await runRuleJob(db.pool, rule.id, apply.id, { now: () => new Date() });
    expect(applied).toMatchObject({ status: "completed", processed: pending, decided: expected.counts.decided });
    const { rows } = await db.pool.query<{ id: string }>(
      `SELECT d.id::text AS id FROM dead_letter d WHERE d.source = $1 AND d.status = 'approved' ORDER BY d.id`,
      [SOURCE],
    );
    expect(rows.map((r) => r.id)).toEqual(expected.decided);
    // Each pinned to the structure repair's own digest (the apply's threads computed it; a dry run does not).
    const geos = await getGeos();
    for (const id of [expected.decided[0]!, expected.decided[1]!, expected.decided.at(-1)!]) {
      const detail = await getDeadLetter(db.pool, id);
      const pin = pinRepair(geos, detail.payload, { method: "structure", policy: "accept" });
      expect(pin.ok && detail.approvedRepair?.digest).toBe(pin.ok ? pin.pin.digest : null);
    }
  });
});
