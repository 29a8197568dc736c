import { describe, expect, it } from "vitest";
import { reasonGroup } from "./reason-group";

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
    expect(reasonGroup("Self-intersection at or near point (1.5, 2)")).toBe(
      reasonGroup("Self-intersection at or near point (-10, 20.25)"),
    );
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
});
