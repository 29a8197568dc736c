import { describe, expect, it } from "vitest";
import { MAX_GROUP_LENGTH, reasonGroup } from "./reason-group";

describe("reasonGroup", () => {
  it.each([
    ["Self-intersection at or near point (1.5, 2)", "Self-intersection at or near point (…)"],
    ["Self-intersection at or near point (1 1)", "Self-intersection at or near point (…)"],
    ["Ring Self-intersection at or near point (-73.98, 40.75)", "Ring Self-intersection at or near point (…)"],
    ["Too few points in geometry component at or near point [1e-3, 2E+5]", "Too few points in geometry component at or near point […]"],
    ["exhausted retries: 4 errors", "exhausted retries: … errors"],
    ["duplicate event 3f2b8c1e-9d4a-4e6b-8f7c-2a1d5e9b0c43", "duplicate event …"],
    [`hash mismatch ${"ab12".repeat(16)} vs ${"cd34".repeat(16)}`, "hash mismatch … vs …"],
    ["unknown device 'gate-07' at 2024-05-01T08:30:00Z", "unknown device '…' at …"],
    ['unexpected value "foo bar" for mode', 'unexpected value "…" for mode'],
    ["features.3.geometry: invalid", "features.….geometry: invalid"],
    ["CRS EPSG:3857 reprojected", "CRS EPSG:… reprojected"],
  ])("%s → %s", (reason, group) => {
    expect(reasonGroup(reason)).toBe(group);
  });

  it("groups reasons that differ only in values", () => {
    expect(reasonGroup("Self-intersection at or near point (1.5, 2)")).toBe(reasonGroup("Self-intersection at or near point (-10, 20.25)"));
  });

  it.each([
    "fare_amount_cents: Expected integer, received string; battery_pct: Unrecognized key",
    "tap_timestamp: Invalid datetime",
    "event_id: Required",
    "missing event_id",
    "it can't be parsed, won't retry",
    "utf8 and v2 identifiers stay",
    "deadbeef is a word here",
  ])("leaves value-free reasons alone: %s", (reason) => {
    expect(reasonGroup(reason)).toBe(reason);
  });

  it("normalizes whitespace", () => {
    expect(reasonGroup("  a \n b  ")).toBe("a b");
  });

  it("groups a hostile reason in linear time (digits glued to a letter, escaped quotes): milliseconds, not seconds", () => {
    for (const reason of [`${"1".repeat(40_000)}x`, `"${'\\"'.repeat(40_000)}`, `${"1".repeat(1_000_000)}x`]) {
      const t0 = performance.now();
      const group = reasonGroup(reason);
      expect(performance.now() - t0, reason.slice(0, 10)).toBeLessThan(500);
      expect(group.length).toBeLessThanOrEqual(MAX_GROUP_LENGTH);
    }
  });
});
