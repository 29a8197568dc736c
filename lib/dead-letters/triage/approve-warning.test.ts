import { describe, expect, it } from "vitest";
import { approveWarning, TAP_FAILS_SCHEMA } from "./approve-warning";

const tap = { event_id: "e-1", device_id: "d-1", fare_amount_cents: 250, tap_timestamp: "2026-11-01T08:00:00Z" };

describe("approveWarning", () => {
  it("warns about a tap that still fails its schema", () => {
    expect(approveWarning("afc", { ...tap, battery_pct: 80 })).toBe(TAP_FAILS_SCHEMA);
    expect(approveWarning("afc", { ...tap, fare_amount_cents: "250" })).toBe(TAP_FAILS_SCHEMA);
  });

  it("says nothing for a valid tap, a purged payload or a spatial record", () => {
    expect(approveWarning("afc", tap)).toBeNull();
    expect(approveWarning("afc", null)).toBeNull();
    expect(approveWarning("spatial", { type: "Feature", geometry: null, properties: {} })).toBeNull();
  });
});
