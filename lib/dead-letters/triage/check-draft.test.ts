import { describe, expect, it } from "vitest";
import { checkDraft } from "./check-draft";

const tap = { event_id: "e", device_id: "d", fare_amount_cents: "275", tap_timestamp: "2026-11-05T08:00:00Z" };

describe("checkDraft", () => {
  it("AFC: refuses an identity change unless overridden, and warns about the tap schema", () => {
    const changed = checkDraft("afc", tap, JSON.stringify({ ...tap, fare_amount_cents: 280 }), { key: "abc", override: false });
    expect(changed.identity).toEqual(["fare_amount_cents"]);
    expect(changed.savable).toBe(false);
    expect(changed.findings[0]).toMatchObject({ path: "fare_amount_cents", severity: "error" });
    expect(checkDraft("afc", tap, JSON.stringify({ ...tap, fare_amount_cents: 280 }), { key: "abc", override: true }).savable).toBe(true);
    const schema = checkDraft("afc", tap, JSON.stringify(tap), { key: null, override: false });
    expect(schema.findings).toEqual([expect.objectContaining({ path: "fare_amount_cents", severity: "warning" })]);
  });

  it("AFC: coercing the string fare to its number is a fix, not an identity change (issue #4)", () => {
    const coerced = checkDraft("afc", tap, JSON.stringify({ ...tap, fare_amount_cents: 275 }), { key: "abc", override: false });
    expect(coerced.identity).toEqual([]);
    expect(coerced.savable).toBe(true);
    expect(coerced.findings).toEqual([]);
  });

  it("spatial: reports live validity of the geometry", () => {
    const bowtie = {
      type: "Feature",
      properties: {},
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [1, 1],
            [1, 0],
            [0, 1],
            [0, 0],
          ],
        ],
      },
    };
    const c = checkDraft("spatial", bowtie, JSON.stringify(bowtie), { key: "k", override: false });
    expect(c.validity).toMatchObject({ valid: false, location: [0.5, 0.5] });
    expect(c.findings[0]?.message).toContain("Self-intersection at or near point (0.5, 0.5)");
    expect(c.savable).toBe(true);
  });

  it("spatial: a payload that is not a Feature cannot be saved (the server refuses it), a broken geometry can", () => {
    const notFeature = checkDraft("spatial", null, JSON.stringify({ foo: 1 }), { key: "k", override: false });
    expect(notFeature.savable).toBe(false);
    expect(notFeature.findings[0]).toMatchObject({ path: "type", severity: "error" });
    const nullGeometry = checkDraft("spatial", null, JSON.stringify({ type: "Feature", properties: {}, geometry: null }), {
      key: "k",
      override: false,
    });
    expect(nullGeometry.savable).toBe(true);
  });

  it("refuses text that is not a JSON object", () => {
    expect(checkDraft("spatial", null, "{oops", { key: null, override: false })).toMatchObject({ value: null, savable: false });
    expect(checkDraft("afc", null, "[1]", { key: null, override: false }).findings[0]?.message).toBe("Must be an AFC tap (a JSON object)");
  });
});
