import { describe, expect, it } from "vitest";
import { diffPositions, isPositionList, LCS_MAX_CELLS } from "./position-diff";

const ring = (n: number) => {
  const open = Array.from({ length: n }, (_, i) => [i, i * 2]);
  return [...open, open[0]!];
};

describe("diffPositions", () => {
  it("finds nothing between equal lists", () => {
    expect(diffPositions(ring(5), ring(5))).toEqual([]);
  });

  it("calls one deleted vertex one deletion, not a change of every position after it", () => {
    const before = ring(6);
    const after = before.filter((_, i) => i !== 2);
    expect(diffPositions(before, after)).toEqual([{ kind: "deleted", beforeIndex: 2, before: [2, 4] }]);
  });

  it("calls one inserted vertex (a dragged midpoint) one insertion", () => {
    const before = ring(4);
    const after = [...before.slice(0, 2), [1.5, 2.5], ...before.slice(2)];
    expect(diffPositions(before, after)).toEqual([{ kind: "inserted", afterIndex: 2, after: [1.5, 2.5] }]);
  });

  it("calls one moved vertex one move", () => {
    const before = ring(5);
    const after = before.map((p, i) => (i === 3 ? [3.25, 6.5] : p));
    expect(diffPositions(before, after)).toEqual([{ kind: "moved", beforeIndex: 3, afterIndex: 3, before: [3, 6], after: [3.25, 6.5] }]);
  });

  it("moving a closed ring's first vertex (which its last repeats) is one move", () => {
    const before = ring(4);
    const after = before.map((p, i) => (i === 0 || i === 4 ? [-1, -1] : p));
    expect(diffPositions(before, after)).toEqual([{ kind: "moved", beforeIndex: 0, afterIndex: 0, before: [0, 0], after: [-1, -1] }]);
  });

  it("deleting a closed ring's first vertex is one deletion", () => {
    const before = ring(5); // 0..4, then 0 again
    const after = [...before.slice(1, 5), before[1]!];
    expect(diffPositions(before, after)).toEqual([{ kind: "deleted", beforeIndex: 0, before: [0, 0] }]);
  });

  it("closing an open ring is one insertion at its end", () => {
    const open = ring(4).slice(0, -1);
    expect(diffPositions(open, ring(4))).toEqual([{ kind: "inserted", afterIndex: 4, after: [0, 0] }]);
  });

  it("keeps separate edits apart: a deletion early and a move late", () => {
    const before = ring(8).slice(0, -1);
    const after = before.filter((_, i) => i !== 1).map((p) => (p[0] === 6 ? [6, 13] : p));
    expect(diffPositions(before, after)).toEqual([
      { kind: "deleted", beforeIndex: 1, before: [1, 2] },
      { kind: "moved", beforeIndex: 6, afterIndex: 5, before: [6, 12], after: [6, 13] },
    ]);
  });

  it("tells z apart: [1, 2] and [1, 2, 0] are different positions", () => {
    expect(diffPositions([[1, 2]], [[1, 2, 0]])).toEqual([
      { kind: "moved", beforeIndex: 0, afterIndex: 0, before: [1, 2], after: [1, 2, 0] },
    ]);
  });

  it("compares by index when the changed middle is too large for the table", () => {
    const side = Math.ceil(Math.sqrt(LCS_MAX_CELLS)) + 2;
    const before = Array.from({ length: side }, (_, i) => [i, 0]);
    const after = Array.from({ length: side }, (_, i) => [i, 1]);
    const edits = diffPositions(before, after);
    expect(edits).toHaveLength(side);
    expect(edits.every((e) => e.kind === "moved")).toBe(true);
  });
});

describe("isPositionList", () => {
  it("takes lists of 2D and 3D numeric positions only", () => {
    expect(
      isPositionList([
        [1, 2],
        [3, 4, 5],
      ]),
    ).toBe(true);
    expect(isPositionList([])).toBe(false);
    expect(isPositionList([1, 2])).toBe(false);
    expect(isPositionList([[1, "2"]])).toBe(false);
    expect(isPositionList([[[1, 2]]])).toBe(false);
  });
});
