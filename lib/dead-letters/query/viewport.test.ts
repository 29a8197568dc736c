import { describe, expect, it } from "vitest";
import { searchBoxes, viewportBoxes } from "./viewport";

describe("viewportBoxes", () => {
  it("keeps a view inside one world as it is", () => {
    expect(viewportBoxes([2.2, 48.8, 2.5, 48.9])).toEqual([[2.2, 48.8, 2.5, 48.9]]);
    expect(viewportBoxes([-180, -60, 180, 60])).toEqual([[-180, -60, 180, 60]]);
  });

  it("splits a view across the antimeridian into its two sides instead of clamping it", () => {
    expect(viewportBoxes([170, -20, 190, 20])).toEqual([
      [170, -20, 180, 20],
      [-180, -20, -170, 20],
    ]);
    expect(viewportBoxes([-190, -20, -170, 20])).toEqual([
      [170, -20, 180, 20],
      [-180, -20, -170, 20],
    ]);
  });

  it("folds a view on a neighbouring world copy back onto the stored world", () => {
    expect(viewportBoxes([362, 10, 365, 12])).toEqual([[2, 10, 5, 12]]);
    expect(viewportBoxes([-358, 10, -355, 12])).toEqual([[2, 10, 5, 12]]);
  });

  it("takes a view of a whole turn or more as the whole world", () => {
    expect(viewportBoxes([-400, -80, 300, 80])).toEqual([[-180, -80, 180, 80]]);
  });
});

describe("searchBoxes", () => {
  it("adds the view shifted by +360 when it stops short of 180, to meet unwrapped boxes east of -180", () => {
    expect(searchBoxes([172, -20, 179, -10])).toEqual([
      [172, -20, 179, -10],
      [532, -20, 539, -10],
    ]);
    expect(searchBoxes([-179, -20, -172, -10])).toEqual([
      [-179, -20, -172, -10],
      [181, -20, 188, -10],
    ]);
    expect(searchBoxes([362, 10, 365, 12])).toEqual([
      [2, 10, 5, 12],
      [362, 10, 365, 12],
    ]);
  });

  it("needs no copy when a view reaches 180, which every unwrapped box contains", () => {
    expect(searchBoxes([170, -20, 180, 20])).toEqual([[170, -20, 180, 20]]);
    expect(searchBoxes([175, -20, 185, -15])).toEqual([
      [175, -20, 180, -15],
      [-180, -20, -175, -15],
    ]);
    expect(searchBoxes([-400, -80, 300, 80])).toEqual([[-180, -80, 180, 80]]);
  });
});
