import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../json/canonical";
import type { ActiveRule } from "../../rules/rules";
import { decisionAudit, decisionEntriesJson, type RuleDecision } from "./rule-decisions";

const rule = (over: Partial<ActiveRule>): ActiveRule =>
  ({
    id: "7",
    name: "bowtie-sliver",
    version: 3,
    approvers: ["ann@example.test", "bob@example.test"],
    match: {},
    action: { type: "approve" },
    replays: null,
    ...over,
  }) as ActiveRule;

describe("a batch's rule decision entries", () => {
  it("are written exactly as canonicalJson writes {id, ...decisionAudit}", () => {
    const approve = rule({});
    const quarantine = rule({
      id: "8",
      name: 'card data "in" taps ✓',
      version: 1,
      approvers: ["zoë@example.test", "al@example.test"],
      action: { type: "quarantine", reason: "card data in a tap:\nsecurity review" },
    });
    const pin = { method: "structure", policy: "largest-part", digest: "ab".repeat(32), outcome: "repaired" } as const;
    const decisions: RuleDecision[] = [
      { id: "9", recordVersion: 1, rule: approve, action: "approve", pin, areaChange: 0.001 },
      { id: "10", recordVersion: 1, rule: quarantine, action: "quarantine", pin: null, areaChange: null },
      { id: "11", recordVersion: 1, rule: approve, action: "approve", pin: null, areaChange: null },
      { id: "12", recordVersion: 2, rule: quarantine, action: "quarantine", pin: null, areaChange: null },
      { id: "9007199254740993", recordVersion: 1, rule: approve, action: "approve", pin: { ...pin, outcome: "valid" }, areaChange: 0 },
    ];
    const text = decisionEntriesJson(decisions);
    expect(text).toBe(canonicalJson(decisions.map((d) => ({ id: d.id, ...decisionAudit(d) }))));
    expect(JSON.parse(text)[1]).toEqual({
      id: "10",
      status: "quarantined",
      reason: "card data in a tap:\nsecurity review",
      rule: { id: "8", name: 'card data "in" taps ✓', version: 1 },
      approvers: ["zoë@example.test", "al@example.test"],
    });
  });
});
