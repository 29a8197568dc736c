import { describe, expect, it } from "vitest";
import { storedBox } from "./stored-box";

describe("storedBox", () => {
  it("keeps a box that does not cross the antimeridian", () => {
    expect(storedBox([2.3, 48.8, 2.4, 48.9])).toEqual([2.3, 48.8, 2.4, 48.9]);
    expect(storedBox([-180, -90, 180, 90])).toEqual([-180, -90, 180, 90]);
    expect(storedBox([170, -10, 180, 10])).toEqual([170, -10, 180, 10]); // touches 180: one side only
  });

  it("unwraps a box across the antimeridian (west > east) past 180 instead of letting it span the world", () => {
    expect(storedBox([178, -17, -178, -16])).toEqual([178, -17, 182, -16]);
    expect(storedBox([-170, -5, -175, 5])).toEqual([-170, -5, 185, 5]); // 355° wide, and still honest
  });
});
