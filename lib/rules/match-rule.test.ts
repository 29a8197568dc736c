import { describe, expect, it } from "vitest";
import { afcIssuesOf, areaBucket, matchRule, SKIP, type RecordFacts, type RuleAnalysis } from "./match-rule";
import { CreateRuleBodySchema, PatchRuleBodySchema, RuleMatchSchema } from "./rule-schemas";

const repaired: RuleAnalysis = {
  outcome: "repaired",
  method: "linework",
  policy: "accept",
  type_changed: false,
  type_before: "Polygon",
  type_after: "Polygon",
  area_before: 100,
  area_after: 100.4,
  dropped_parts: 0,
};
const bowtie: RecordFacts = {
  kind: "spatial",
  status: "pending",
  source: "parcels",
  originSource: null,
  reasonGroup: "Self-intersection at or near point (…)",
  reason: "Self-intersection at or near point (1, 1)",
  failureClass: "transient",
  analysis: repaired,
};
const star: RecordFacts = {
  ...bowtie,
  analysis: { ...repaired, type_changed: true, type_after: "MultiPolygon", area_before: 1, area_after: 0.528 },
};
const tap: RecordFacts = {
  kind: "afc",
  status: "pending",
  source: "gates",
  originSource: "rabbit-gates",
  reasonGroup: "battery_pct: Unrecognized key",
  reason: "battery_pct: Unrecognized key",
  failureClass: "transient_schema",
  analysis: null,
  tap: { event_id: "e-1", device_id: "gate-1", fare_amount_cents: 250, tap_timestamp: "2026-12-01T08:00:00Z", battery_pct: 7 },
};
const sliver = { match: { source: "parcels", repair: { sameType: true, maxAreaChange: 0.01 } }, action: { type: "approve" as const } };

describe("matchRule", () => {
  it("approves a repair that keeps the type and all but a sliver of the area, and skips a star losing 47%", () => {
    expect(matchRule(sliver, bowtie)).toEqual({
      kind: "decide",
      areaChange: expect.closeTo(0.004, 6),
      repair: { method: "linework", policy: "accept" },
    });
    expect(matchRule(sliver, star)).toEqual({ kind: "skip", reason: SKIP.typeChanges });
    const areaOnly = { ...sliver, match: { source: "parcels", repair: { maxAreaChange: 0.01 } } };
    expect(matchRule(areaOnly, star)).toEqual({ kind: "skip", reason: SKIP.area(0.01) });
    expect(SKIP.area(0.01)).toBe("the area changes by more than 1%");
    // largest-part brings a MultiPolygon repair back to a Polygon: the type is kept.
    const largest = { ...repaired, policy: "largest-part" as const, type_changed: true, dropped_parts: 1 };
    expect(matchRule(sliver, { ...bowtie, analysis: largest })).toMatchObject({ kind: "decide" });
  });

  it("leaves out records of another source, kind, origin, reason group or class, and decided records", () => {
    for (const r of [
      { ...bowtie, source: "roads" },
      { ...bowtie, status: "approved" as const },
      { ...bowtie, kind: "afc" as const },
    ]) {
      expect(matchRule(sliver, r)).toEqual({ kind: "out" });
    }
    const byReason = { match: { reason: bowtie.reasonGroup }, action: { type: "leave" as const } };
    expect(matchRule(byReason, bowtie)).toMatchObject({ kind: "decide" });
    expect(matchRule(byReason, { ...bowtie, reasonGroup: "other" })).toEqual({ kind: "out" });
    expect(matchRule({ match: { origin: "rabbit-gates" }, action: { type: "leave" } }, bowtie)).toEqual({ kind: "out" });
    expect(matchRule({ match: { origin: "rabbit-gates" }, action: { type: "leave" } }, tap)).toMatchObject({ kind: "decide" });
    expect(matchRule({ match: { class: "poison" }, action: { type: "leave" } }, tap)).toEqual({ kind: "out" });
    expect(matchRule(sliver, tap)).toEqual({ kind: "out" });
  });

  it("asks for the analysis of a repair other than the stored one, then judges that one", () => {
    const structure = { ...sliver, match: { source: "parcels", repair: { method: "structure" as const, maxAreaChange: 0.01 } } };
    expect(matchRule(structure, bowtie)).toEqual({ kind: "needs_analysis", method: "structure", policy: "accept" });
    const theirs = { ...repaired, method: "structure" as const, area_after: 150 };
    expect(matchRule(structure, bowtie, theirs)).toEqual({ kind: "skip", reason: SKIP.area(0.01) });
    // A valid input is valid under every repair: its stored analysis answers, no GEOS is asked for.
    const valid: RuleAnalysis = { ...repaired, outcome: "valid", area_after: repaired.area_before };
    expect(matchRule(structure, { ...bowtie, analysis: valid })).toEqual({
      kind: "decide",
      areaChange: 0,
      repair: { method: "structure", policy: "accept" },
    });
    const sameTypeOther = { ...structure, match: { repair: { method: "structure" as const, policy: "drop" as const, sameType: true } } };
    expect(matchRule(sameTypeOther, { ...bowtie, analysis: valid })).toMatchObject({ kind: "decide", repair: { policy: "drop" } });
  });

  it("skips poison for approvals, a dropped repair, an unmeasurable area and too many dropped parts", () => {
    expect(matchRule(sliver, { ...bowtie, failureClass: "poison" })).toEqual({ kind: "skip", reason: SKIP.poison });
    expect(
      matchRule({ ...sliver, action: { type: "quarantine", reason: "known bad" } }, { ...bowtie, failureClass: "poison" }),
    ).toMatchObject({
      kind: "decide",
    });
    expect(matchRule(sliver, { ...bowtie, analysis: { ...repaired, outcome: "dropped" } })).toEqual({ kind: "skip", reason: SKIP.dropped });
    expect(matchRule(sliver, { ...bowtie, analysis: { ...repaired, area_before: 0 } })).toEqual({ kind: "skip", reason: SKIP.areaUnknown });
    expect(matchRule(sliver, { ...bowtie, analysis: null })).toEqual({ kind: "skip", reason: SKIP.noAnalysis });
    const parts = { match: { repair: { maxDroppedParts: 0 } }, action: { type: "approve" as const } };
    expect(matchRule(parts, { ...bowtie, analysis: { ...repaired, dropped_parts: 2 } })).toEqual({
      kind: "skip",
      reason: SKIP.dropsParts(0),
    });
    // A valid geometry changes nothing.
    expect(matchRule(sliver, { ...bowtie, analysis: { ...repaired, outcome: "valid", area_before: 0, area_after: 0 } })).toMatchObject({
      kind: "decide",
      areaChange: 0,
    });
  });

  it("matches AFC records whose every tap-schema issue is listed, by field or by whole entry", () => {
    const rule = { match: { afcIssues: ["battery_pct"] }, action: { type: "quarantine" as const, reason: "firmware 2.1" } };
    expect(matchRule(rule, tap)).toMatchObject({ kind: "decide" });
    const two = { ...tap, tap: { ...(tap.tap as object), fare_amount_cents: "250" } };
    expect(matchRule(rule, two)).toEqual({ kind: "out" });
    const both = { ...rule, match: { afcIssues: ["battery_pct", "fare_amount_cents: Expected integer, received string"] } };
    expect(matchRule(both, two)).toMatchObject({ kind: "decide" });
    expect(afcIssuesOf(two.tap).map((i) => i.field)).toEqual(["fare_amount_cents", "battery_pct"]);
    // A tap that passes the schema has no issue a rule could list.
    const { battery_pct: _, ...clean } = tap.tap as Record<string, unknown>;
    expect(matchRule(rule, { ...tap, tap: clean })).toEqual({ kind: "out" });
  });
});

describe("areaBucket", () => {
  it("puts a change in the smallest bound it stays within", () => {
    expect([0, 0.0004, -0.004, 0.3, 2, null].map(areaBucket)).toEqual(["0", "0.001", "0.01", "0.5", "more", "unknown"]);
  });
});

describe("rule bodies", () => {
  it("refuses a match that narrows nothing, repair criteria on AFC, and a kill switch mixed with a change", () => {
    expect(RuleMatchSchema.safeParse({}).success).toBe(false);
    expect(RuleMatchSchema.safeParse({ kind: "afc", repair: { sameType: true } }).success).toBe(false);
    expect(PatchRuleBodySchema.safeParse({ enabled: false }).success).toBe(true);
    expect(PatchRuleBodySchema.safeParse({ enabled: false, action: { type: "leave" } }).success).toBe(false);
    expect(PatchRuleBodySchema.safeParse({}).success).toBe(false);
    expect(CreateRuleBodySchema.safeParse({ name: "Bowtie Sliver", match: { kind: "spatial" }, action: { type: "leave" } }).success).toBe(
      false,
    );
    expect(CreateRuleBodySchema.safeParse({ name: "q", match: { kind: "afc" }, action: { type: "quarantine" } }).success).toBe(false);
  });
});
