import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STANDING_REPLAY } from "../../lib/replay/batch/standing-rules";
import { reasonGroup } from "../../lib/afc/reason-group";
import { closeDb, type Db } from "../../lib/db/client";
import { judgeableInSql, needsOtherRepairSql } from "../../lib/dead-letters/rules/judge-in-sql";
import { createRuleJob, runRuleJob } from "../../lib/dead-letters/rules/rule-jobs";
import { FACT_COLUMNS, toRuleRecord, type FactRow } from "../../lib/dead-letters/store/rule-decisions";
import { areaBucket, matchRule } from "../../lib/rules/match-rule";
import type { RuleAction, RuleCounts, RuleMatch } from "../../lib/rules/rule-schemas";
import { createRule, type RuleContext } from "../../lib/rules/rules";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { ingest } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { pentagram, SLIVER_BOWTIE, SQUARE } from "../support/rule-shapes";

// A dry run of a rule reading only stored columns is counted in SQL (judge-in-sql.ts): its counts, skip reasons,
// area-change buckets and samples must be matchRule's on the same records, whatever odd analyses they hold.

setTestAuthEnv();

const SOURCE = "parcels-sql";
const bowtie = SLIVER_BOWTIE;
const star = pentagram();
const square = SQUARE;

let n = 0;
const spatial = (geometry: unknown, source = SOURCE) =>
  JSON.stringify({
    kind: "spatial",
    source,
    idempotency_key: `sql-${++n}`,
    observed_at: "2026-12-01T10:00:00Z",
    feature: { type: "Feature", id: `f-${n}`, properties: {}, geometry },
    dead_letter_reason: n % 2 ? "TopologyException: Self-intersection" : "HTTP 503 Service Unavailable",
  });
const afc = (fare: unknown) =>
  JSON.stringify({
    kind: "afc",
    source: "gates.metro",
    raw_payload: { event_id: `tap-${++n}`, device_id: "gate-01", fare_amount_cents: fare, tap_timestamp: "2026-11-02T18:10:11.901Z" },
    retry_count: 0,
  });

let db: Db;
let ctx: RuleContext;

beforeAll(async () => {
  db = await testDb();
  const u = await makeUser(db, "supervisor", { email: "sql@test.local" });
  ctx = {
    actor: { id: u.id, email: u.email, role: "supervisor" },
    role: "supervisor",
    scope: UNSCOPED,
    requestId: "t",
    now: new Date(),
    standing: STANDING_REPLAY,
  };
  const ids = await ingest(db, [
    ...[bowtie, star, square, bowtie, star, square, bowtie, star, square, bowtie, star, square].map((g) => spatial(g)),
    spatial(bowtie, "elsewhere"),
    afc(250.0),
    afc(250),
    afc("2.50"),
  ]);
  // Analyses a rule meets in stored records, odd ones included.
  const edit = (i: number, sql: string) => db.pool.query(`UPDATE dead_letter SET ${sql} WHERE id = $1`, [ids[i]]);
  await edit(0, `analysis = jsonb_set(analysis, '{outcome}', '"dropped"')`);
  await edit(1, `analysis = NULL`);
  await edit(2, `analysis = jsonb_set(jsonb_set(analysis, '{area_before}', '0'), '{outcome}', '"repaired"')`);
  await edit(3, `analysis = analysis - 'area_before' - 'area_after' - 'type_before' - 'type_after' - 'dropped_parts'`);
  await edit(4, `analysis = jsonb_set(jsonb_set(analysis, '{type_before}', 'null'), '{type_changed}', 'true')`);
  await edit(5, `analysis = jsonb_set(analysis, '{dropped_parts}', '2')`);
  await edit(6, `failure_class = 'poison', status = 'pending'`);
  await edit(7, `status = 'approved'`);
  await edit(9, `analysis = jsonb_set(analysis, '{method}', '"structure"')`);
  await edit(10, `analysis = jsonb_set(jsonb_set(analysis, '{method}', '"structure"'), '{policy}', '"largest-part"')`);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

/** matchRule's counts over every stored record, in id order: what the paged walk computes. */
async function reference(match: RuleMatch, action: RuleAction): Promise<RuleCounts> {
  const { rows } = await db.pool.query<FactRow>(`SELECT ${FACT_COLUMNS} FROM dead_letter d ORDER BY d.id`);
  const c: RuleCounts = {
    decided: 0,
    skipped: 0,
    skippedReasons: {},
    samples: { decided: [], skipped: [] },
    areaChanges: {},
    notReplayableToOrigin: null,
  };
  for (const row of rows) {
    const r = toRuleRecord(row);
    const o = matchRule({ match, action }, r);
    if (o.kind === "skip") {
      c.skipped++;
      c.skippedReasons[o.reason] = (c.skippedReasons[o.reason] ?? 0) + 1;
      if (c.samples.skipped.length < 10) c.samples.skipped.push({ id: r.id, reason: o.reason });
    } else if (o.kind === "decide") {
      c.decided++;
      if (c.samples.decided.length < 10) c.samples.decided.push(r.id);
      if (action.type === "approve" && r.kind === "spatial") {
        const b = areaBucket(o.areaChange);
        c.areaChanges[b] = (c.areaChanges[b] ?? 0) + 1;
      }
    } else if (o.kind === "needs_analysis") throw new Error("not a stored-analysis rule");
  }
  return c;
}

const RULES: [string, RuleMatch, RuleAction][] = [
  ["all-criteria", { kind: "spatial", repair: { sameType: true, maxAreaChange: 0.05, maxDroppedParts: 0 } }, { type: "approve" }],
  ["area-quarantine", { source: SOURCE, repair: { maxAreaChange: 0.6 } }, { type: "quarantine", reason: "big change" }],
  ["source-approve", { source: SOURCE }, { type: "approve" }],
  ["reason-approve", { reason: reasonGroup("HTTP 503 Service Unavailable") }, { type: "approve" }],
  ["afc-leave", { kind: "afc", class: "transient_schema" }, { type: "leave" }],
  ["parts-leave", { source: SOURCE, repair: { maxDroppedParts: 1 } }, { type: "leave" }],
];

describe("a dry run counted in SQL", () => {
  it.each(RULES)("%s: counts what matchRule counts on the same records", async (name, match, action) => {
    expect(judgeableInSql(match)).toBe(true);
    const rule = await createRule(db.pool, { name, match, action }, ctx);
    const job = await createRuleJob(db.pool, rule.id, { type: "dry_run", match, action, version: 1 }, ctx);
    const done = await runRuleJob(db.pool, rule.id, job.id, { now: () => new Date() });
    const want = await reference(match, action);
    expect(done).toMatchObject({ status: "completed", ...want });
    expect(done.processed).toBe(done.total);
    expect(want.decided + want.skipped).toBeGreaterThan(0);
  });

  // A rule judging another repair: its dry run's page query asks needsOtherRepairSql which records need that repair
  // (GEOS) and judges the others in SQL. It must ask exactly matchRule's needs_analysis of every record in scope.
  const OTHER_REPAIR: [string, RuleMatch, RuleAction][] = [
    ["method", { source: SOURCE, repair: { method: "structure", maxAreaChange: 0.05 } }, { type: "approve" }],
    ["policy", { source: SOURCE, repair: { policy: "largest-part" } }, { type: "approve" }],
    ["method and policy", { kind: "spatial", repair: { method: "structure", policy: "largest-part" } }, { type: "approve" }],
    ["quarantine", { source: SOURCE, repair: { method: "structure", sameType: true } }, { type: "quarantine", reason: "type" }],
  ];
  it.each(OTHER_REPAIR)("%s: SQL asks for the other repair of exactly the records matchRule asks it for", async (_, match, action) => {
    expect(judgeableInSql(match)).toBe(false);
    const params: unknown[] = [];
    const needs = needsOtherRepairSql(match, action, (v) => `$${params.push(v)}`);
    const { rows } = await db.pool.query<FactRow & { needs: boolean }>(
      `SELECT ${FACT_COLUMNS}, (${needs}) AS needs FROM dead_letter d ORDER BY d.id`,
      params,
    );
    const seen = { asked: 0, answered: 0 };
    for (const row of rows) {
      const outcome = matchRule({ match, action }, toRuleRecord(row));
      if (outcome.kind === "out") continue;
      expect(row.needs, `record ${row.id}: ${outcome.kind}`).toBe(outcome.kind === "needs_analysis");
      seen[row.needs ? "asked" : "answered"]++;
    }
    expect(seen.asked).toBeGreaterThan(0);
    expect(seen.answered).toBeGreaterThan(0);
  });

  it("the paged walk stays for what SQL cannot judge (tap issues, another repair)", () => {
    expect(judgeableInSql({ kind: "afc", afcIssues: ["fare_amount_cents"] })).toBe(false);
    expect(judgeableInSql({ source: SOURCE, repair: { method: "structure" } })).toBe(false);
  });
});
