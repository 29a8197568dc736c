import { describe, expect, it } from "vitest";
import { isFeaturePayload } from "./feature-payload";

describe("isFeaturePayload", () => {
  it("accepts a Feature, whatever its geometry", () => {
    expect(isFeaturePayload({ type: "Feature", geometry: null, properties: {} })).toBe(true);
  });

  it("refuses what an unreadable broker message or a bad envelope leaves as the payload", () => {
    for (const p of ["this is not json <xml/>", { base64: "//4AgUE=" }, null, [], { type: "Polygon", coordinates: [] }])
      expect(isFeaturePayload(p)).toBe(false);
  });
});
