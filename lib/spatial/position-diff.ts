import type { Position } from "./geojson";

// What changed between two lists of positions (a ring, a line), as an analyst edits them: one deleted, inserted or
// moved vertex is one edit. A generic JSON array diff compares by index, so deleting vertex 2 of 6 reported every
// position after it as changed. Pure and client-safe.

export type PositionEdit =
  | { kind: "deleted"; beforeIndex: number; before: Position }
  | { kind: "inserted"; afterIndex: number; after: Position }
  | { kind: "moved"; beforeIndex: number; afterIndex: number; before: Position; after: Position };

/**
 * Above this many cells (middle of `before` × middle of `after`, once the common ends are set aside) the LCS
 * table is not built: positions are compared by index instead. 4M cells of Uint32 is 16 MB and ~20 ms; edits
 * from the map or the JSON touch a few vertices, so the common ends leave the middle small.
 */
export const LCS_MAX_CELLS = 4_000_000;

const samePosition = (a: Position, b: Position) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

/** An array every member of which is a position of 2 or 3 finite numbers (a ring, a line, a MultiPoint). */
export function isPositionList(value: unknown): value is Position[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((p) => Array.isArray(p) && p.length >= 2 && p.length <= 3 && p.every((n) => typeof n === "number" && Number.isFinite(n)))
  );
}

const closedRing = (ps: Position[]) => ps.length >= 4 && samePosition(ps[0]!, ps.at(-1)!);

/**
 * The edits that turn `before` into `after`. A closed ring's last position repeats its first: when both lists are
 * closed rings it is left out, so moving the first vertex is one edit, not two.
 */
export function diffPositions(before: Position[], after: Position[]): PositionEdit[] {
  const a = closedRing(before) && closedRing(after) ? before.slice(0, -1) : before;
  const b = a === before ? after : after.slice(0, -1);
  let start = 0;
  while (start < a.length && start < b.length && samePosition(a[start]!, b[start]!)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && samePosition(a[endA - 1]!, b[endB - 1]!)) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  if (n === 0 && m === 0) return [];
  if (n * m > LCS_MAX_CELLS) return byIndex(a, b, start, endA, endB);

  // lcs[i * (m + 1) + j]: length of the longest common subsequence of a[start + i..endA) and b[start + j..endB).
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = samePosition(a[start + i]!, b[start + j]!)
        ? lcs[(i + 1) * w + j + 1]! + 1
        : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const edits: PositionEdit[] = [];
  let deleted: number[] = [];
  let inserted: number[] = [];
  // Between two kept positions, deletions and insertions pair up as moves (a dragged vertex); the rest stay.
  const flush = () => {
    const pairs = Math.min(deleted.length, inserted.length);
    for (let k = 0; k < pairs; k++) {
      const i = deleted[k]!;
      const j = inserted[k]!;
      edits.push({ kind: "moved", beforeIndex: i, afterIndex: j, before: a[i]!, after: b[j]! });
    }
    for (const i of deleted.slice(pairs)) edits.push({ kind: "deleted", beforeIndex: i, before: a[i]! });
    for (const j of inserted.slice(pairs)) edits.push({ kind: "inserted", afterIndex: j, after: b[j]! });
    deleted = [];
    inserted = [];
  };
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && samePosition(a[start + i]!, b[start + j]!)) {
      flush();
      i++;
      j++;
    } else if (j >= m || (i < n && lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
      deleted.push(start + i++);
    } else {
      inserted.push(start + j++);
    }
  }
  flush();
  return edits;
}

function byIndex(a: Position[], b: Position[], start: number, endA: number, endB: number): PositionEdit[] {
  const edits: PositionEdit[] = [];
  for (let k = start; k < Math.max(endA, endB); k++) {
    if (k < endA && k < endB) {
      if (!samePosition(a[k]!, b[k]!)) edits.push({ kind: "moved", beforeIndex: k, afterIndex: k, before: a[k]!, after: b[k]! });
    } else if (k < endA) edits.push({ kind: "deleted", beforeIndex: k, before: a[k]! });
    else edits.push({ kind: "inserted", afterIndex: k, after: b[k]! });
  }
  return edits;
}
