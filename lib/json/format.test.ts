import { describe, expect, it } from "vitest";
import { formatJson } from "./format";

describe("formatJson", () => {
  it("keeps positions on one line and parses back to the same value", () => {
    const feature = {
      type: "Feature",
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [1, 1.5],
            [0, 0],
          ],
        ],
      },
      properties: { a: null, b: [] },
    };
    const text = formatJson(feature);
    expect(text).toContain("\n        [1, 1.5],\n");
    expect(JSON.parse(text)).toEqual(feature);
    expect(formatJson({})).toBe("{}");
    expect(formatJson("<b>")).toBe('"<b>"');
  });
});
