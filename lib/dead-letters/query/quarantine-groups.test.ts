import { describe, expect, it } from "vitest";
import { QUARANTINE_REASONS_SHOWN, toGroups, withReasons } from "./quarantine-groups";

describe("withReasons", () => {
  const now = new Date("2026-12-06T12:00:00Z");
  const groups = toGroups(
    [
      { reasonGroup: "bad fare", kind: "afc", day: "2026-12-06", n: 9 },
      { reasonGroup: "bowtie", kind: "spatial", day: "2026-12-05", n: 2 },
    ],
    now,
  );

  it("gives each group the reasons people gave, most frequent first, at most QUARANTINE_REASONS_SHOWN", () => {
    const out = withReasons(groups, [
      { reasonGroup: "bad fare", kind: "afc", reason: "vendor bug", n: 2 },
      { reasonGroup: "bad fare", kind: "afc", reason: "test data", n: 5 },
      { reasonGroup: "bad fare", kind: "afc", reason: "duplicate gate", n: 1 },
      { reasonGroup: "bad fare", kind: "afc", reason: "again", n: 1 },
      // same pattern, other kind: another group
      { reasonGroup: "bowtie", kind: "afc", reason: "not this one", n: 4 },
    ]);
    expect(out[0]?.reasons).toEqual([
      { reason: "test data", count: 5 },
      { reason: "vendor bug", count: 2 },
      { reason: "again", count: 1 },
    ]);
    expect(out[0]?.reasons).toHaveLength(QUARANTINE_REASONS_SHOWN);
    expect(out[1]?.reasons).toEqual([]);
  });
});
