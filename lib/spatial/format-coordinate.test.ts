import { describe, expect, it } from "vitest";
import { formatCoordinate, formatCoordinatesInText, formatPosition, stringifyWithCoordinates } from "./format-coordinate";

describe("formatCoordinate", () => {
  it("hides float noise and keeps 5 decimals", () => {
    expect(formatCoordinate(48.855000000000004)).toBe("48.855");
    expect(formatCoordinate(44.000004)).toBe("44");
    expect(formatCoordinate(2.352219999)).toBe("2.35222");
    expect(formatCoordinate(-73.985656)).toBe("-73.98566");
    expect(formatCoordinate(0.1 + 0.2)).toBe("0.3");
  });

  it("keeps integers and short decimals as they are, and never prints -0", () => {
    expect(formatCoordinate(180)).toBe("180");
    expect(formatCoordinate(-0.000001)).toBe("0");
    expect(formatCoordinate(1.5)).toBe("1.5");
    expect(formatCoordinate(Number.NaN)).toBe("NaN");
  });

  it("formats a position", () => {
    expect(formatPosition([2.3522199999, 48.855000000000004])).toBe("[2.35222, 48.855]");
    expect(formatPosition([1, 2, 3.0000001])).toBe("[1, 2, 3]");
  });
});

describe("formatCoordinatesInText", () => {
  it("rounds the coordinates GEOS prints, the same as the editor's check", () => {
    expect(formatCoordinatesInText("Self-intersection at or near point (2.3522199999999997, 48.855000000000004)")).toBe(
      "Self-intersection at or near point (2.35222, 48.855)",
    );
    expect(formatCoordinatesInText("Self-intersection at or near point (2.35222, 48.855)")).toBe(
      "Self-intersection at or near point (2.35222, 48.855)",
    );
  });

  it("leaves short numbers, versions and ids alone", () => {
    expect(formatCoordinatesInText("HTTP 503 from tiles-ingest (attempt 3) v1.2.3456789 id a1.1234567")).toBe(
      "HTTP 503 from tiles-ingest (attempt 3) v1.2.3456789 id a1.1234567",
    );
    expect(formatCoordinatesInText("within 0.5 s")).toBe("within 0.5 s");
  });
});

describe("stringifyWithCoordinates", () => {
  it("rounds every number in a position list", () => {
    expect(
      stringifyWithCoordinates([
        [2.3522199999, 48.855000000000004],
        [44.000004, 1],
      ]),
    ).toBe("[[2.35222,48.855],[44,1]]");
  });
});
