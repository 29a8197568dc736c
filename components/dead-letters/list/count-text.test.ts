import { describe, expect, it } from "vitest";
import { countLine, matchingCount } from "./count-text";

describe("countLine", () => {
  it("marks an estimate while rows remain to load", () => {
    expect(countLine({ total: 1200, exact: false, loaded: 100, complete: false })).toBe("≈1,200 matching · 100 loaded");
  });

  it("drops the estimate once every matching row is loaded: the loaded count is exact", () => {
    expect(countLine({ total: 71, exact: false, loaded: 71, complete: true })).toBe("71 matching · 71 loaded");
    expect(countLine({ total: 74, exact: false, loaded: 71, complete: true })).toBe("71 matching · 71 loaded");
    expect(matchingCount({ total: 74, exact: false, loaded: 71, complete: true })).toEqual({ n: 71, approx: false });
  });

  it("shows an exact count as it is, and … while the count loads", () => {
    expect(countLine({ total: 5, exact: true, loaded: 5, complete: false })).toBe("5 matching · 5 loaded");
    expect(countLine({ total: undefined, exact: true, loaded: 0, complete: false })).toBe("… · 0 loaded");
  });
});
