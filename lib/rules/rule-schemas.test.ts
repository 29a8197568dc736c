import { describe, expect, it } from "vitest";
import { CARD_NUMBER_REFUSED } from "../masking/searchable";
import { RuleMatchSchema } from "./rule-schemas";

const CARD = "4111111111111111";

// Each text a rule's match holds: a rule's dry run counts and samples what the match finds, so a card number in
// any of them would let a supervisor confirm a card the list and facets show masked.
describe("RuleMatchSchema", () => {
  const textFields = Object.keys(RuleMatchSchema.shape).filter((k) => {
    const plain = RuleMatchSchema.safeParse({ [k]: "x" });
    const listed = RuleMatchSchema.safeParse({ [k]: ["x"] });
    return plain.success || listed.success;
  });

  it("has the text fields this test probes", () => {
    expect(textFields.sort()).toEqual(["afcIssues", "origin", "reason", "source"]);
  });

  it.each(["source", "origin", "reason", "afcIssues"])("refuses a card number in %s, as the list's filters do", (field) => {
    const text = `card pan ${CARD} declined`.slice(0, field === "origin" ? 64 : undefined);
    const value = field === "afcIssues" ? [text] : text;
    const parsed = RuleMatchSchema.safeParse({ [field]: value });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message)).toContain(CARD_NUMBER_REFUSED);
    expect(RuleMatchSchema.safeParse({ [field]: field === "afcIssues" ? ["card declined"] : "card declined" }).success).toBe(true);
  });
});
