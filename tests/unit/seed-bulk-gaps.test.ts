import { describe, expect, it } from "vitest";
import { gaps } from "../../scripts/bench/seed-bulk";

describe("seed-bulk gaps", () => {
  it("names the rows no committed chunk holds, up to the target or the highest row written", () => {
    expect(gaps([], 10)).toEqual([[1, 10]]);
    expect(gaps([{ first: 1, last: 10 }], 10)).toEqual([]);
    expect(gaps([{ first: 1, last: 10 }], 25)).toEqual([[11, 25]]);
    // chunks committed out of order by two loaders, one lost between them
    expect(
      gaps(
        [
          { first: 21, last: 30 },
          { first: 1, last: 10 },
        ],
        40,
      ),
    ).toEqual([
      [11, 20],
      [31, 40],
    ]);
    // a load cut off above a smaller target still gets its hole filled
    expect(
      gaps(
        [
          { first: 1, last: 10 },
          { first: 21, last: 30 },
        ],
        15,
      ),
    ).toEqual([[11, 20]]);
  });
});
