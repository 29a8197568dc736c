import { describe, expect, it } from "vitest";
import { baseVersionOf, diffRuleVersions } from "./rule-diff";
import type { RuleVersionView } from "./rule-schemas";

// The approval view's "what changed": field by field, between the version to approve and the last approved one.

const v = (version: number, patch: Partial<RuleVersionView> = {}): RuleVersionView => ({
  version,
  match: { source: "parcels", repair: { maxAreaChange: 0.01 } },
  action: { type: "approve" },
  replay: null,
  draftedBy: { id: "u1", email: "ann@test.local" },
  draftedAt: "2026-12-01T10:00:00.000Z",
  approvedBy: null,
  approvedAt: null,
  ...patch,
});

const ledger = { sink: { type: "ledger" }, sinkText: "built-in ledger", ratePerSecond: 5 };

describe("diffRuleVersions", () => {
  it("finds nothing between equal versions", () => {
    expect(diffRuleVersions(v(1), v(2))).toEqual([]);
  });

  it("names each changed, added and removed match field by its path", () => {
    const after = v(2, { match: { source: "parcels", kind: "spatial", repair: { maxAreaChange: 0.02, sameType: true } } });
    const before = v(1, { match: { source: "parcels", reason: "TopologyException", repair: { maxAreaChange: 0.01 } } });
    expect(diffRuleVersions(before, after)).toEqual([
      { field: "match.kind", before: null, after: "spatial" },
      { field: "match.repair.maxAreaChange", before: "1% (0.01)", after: "2% (0.02)" },
      { field: "match.repair.sameType", before: null, after: "true" },
      { field: "match.reason", before: "TopologyException", after: null },
    ]);
  });

  it("compares lists as one field and the action's type and reason", () => {
    const before = v(1, { match: { kind: "afc", afcIssues: ["fare_amount_cents"] }, action: { type: "approve" } });
    const after = v(2, {
      match: { kind: "afc", afcIssues: ["fare_amount_cents", "device_id"] },
      action: { type: "quarantine", reason: "firmware" },
    });
    expect(diffRuleVersions(before, after)).toEqual([
      { field: "match.afcIssues", before: "fare_amount_cents", after: "fare_amount_cents, device_id" },
      { field: "action.type", before: "approve", after: "quarantine" },
      { field: "action.reason", before: null, after: "firmware" },
    ]);
  });

  it("shows a standing replay added, its sink's fields, rate and canary changed, or dropped", () => {
    expect(diffRuleVersions(v(1), v(2, { replay: ledger }))).toEqual([
      { field: "replay.sink.type", before: null, after: "ledger" },
      { field: "replay.ratePerSecond", before: null, after: "5" },
    ]);
    const http = {
      sink: { type: "http", url: "https://down.example/in" },
      sinkText: "HTTP POST to https://down.example/in",
      ratePerSecond: 10,
      canary: { count: 20, maxFailureRate: 0.1 },
    };
    expect(diffRuleVersions(v(2, { replay: ledger }), v(3, { replay: http }))).toEqual([
      { field: "replay.sink.type", before: "ledger", after: "http" },
      { field: "replay.sink.url", before: null, after: "https://down.example/in" },
      { field: "replay.ratePerSecond", before: "5", after: "10" },
      { field: "replay.canary.count", before: null, after: "20" },
      { field: "replay.canary.maxFailureRate", before: null, after: "10% (0.1)" },
    ]);
    expect(diffRuleVersions(v(3, { replay: http }), v(4))).toContainEqual({
      field: "replay.sink.url",
      before: "https://down.example/in",
      after: null,
    });
  });
});

describe("baseVersionOf", () => {
  const approved = (n: number) => v(n, { approvedAt: "2026-12-02T10:00:00.000Z" });
  it("is the latest approved version before it, else the one just before, else none", () => {
    expect(baseVersionOf([v(4), v(3), approved(2), approved(1)], 4)?.version).toBe(2);
    expect(baseVersionOf([v(3), v(2), v(1)], 3)?.version).toBe(2);
    expect(baseVersionOf([v(1)], 1)).toBeNull();
  });
});
