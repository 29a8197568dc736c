import { describe, expect, it } from "vitest";
import { decideAlert, type RuleState } from "./decide";

const rule: RuleState = { id: "dlq-size", name: "DLQ too big", metric: "dlq_size", threshold: 100, windowMinutes: 60 };

describe("decideAlert", () => {
  it("fires once per breach and resolves when back at or under the threshold", () => {
    const values = [50, 101, 150, 120, 100, 99, 200];
    let open = false;
    const actions: string[] = [];
    for (const v of values) {
      const d = decideAlert(rule, v, open);
      actions.push(d.action);
      if (d.action === "fire") open = true;
      if (d.action === "resolve") open = false;
    }
    expect(actions).toEqual(["none", "fire", "none", "none", "resolve", "none", "fire"]);
  });

  it("words the message per metric", () => {
    const d = decideAlert({ ...rule, metric: "oldest_age", threshold: 72 }, 80.04, false);
    expect(d).toEqual({ action: "fire", message: "DLQ too big: oldest unresolved dead letter is 80 h old (threshold 72 h)" });
  });
});
