import { create, type Delta } from "jsondiffpatch";
import type { JsonValue } from "@/lib/json/value";
import { diffPositions, isPositionList } from "@/lib/spatial/position-diff";

// What changed between two payloads, as a flat list the UI renders as text (never as HTML) and the audit trail
// stores as a jsondiffpatch delta. Client-safe and pure.

// Moves are not detected: coordinate arrays are long and a "moved vertex" reads worse than two changes.
const differ = create({ arrays: { detectMove: false }, cloneDiffValues: false });

/**
 * Values past which two payloads are compared coarsely (below). jsondiffpatch matches array items with an LCS of
 * n × m cells: a 250,000-vertex ring against its stored copy hung the browser's record page for minutes, and an
 * edit of such a record would hold the server's thread as long.
 */
export const DIFF_VALUE_BUDGET = 50_000;

export function payloadDelta(before: JsonValue | null, after: JsonValue | null): Delta {
  if (valuesOver(before, DIFF_VALUE_BUDGET) || valuesOver(after, DIFF_VALUE_BUDGET)) return coarseDelta(before, after);
  return differ.diff(before, after);
}

/** Whether `v` holds more than `budget` values (objects, arrays and leaves alike); stops counting at the budget. */
function valuesOver(v: JsonValue | null, budget: number): boolean {
  const stack: unknown[] = [v];
  let seen = 0;
  while (stack.length > 0) {
    const x = stack.pop();
    if (++seen > budget) return true;
    if (Array.isArray(x)) for (const item of x) stack.push(item);
    else if (x !== null && typeof x === "object") for (const item of Object.values(x)) stack.push(item);
  }
  return false;
}

const isObject = (v: unknown): v is { [key: string]: JsonValue } => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A delta in jsondiffpatch's format, linear in the payloads' size: objects key by key, anything else (an array
 * of 250,000 positions) as one value replaced when its JSON differs.
 */
function coarseDelta(before: JsonValue | null | undefined, after: JsonValue | null | undefined): Delta {
  if (isObject(before) && isObject(after)) {
    const out: Record<string, Delta> = {};
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (!(key in after)) out[key] = [before[key], 0, 0];
      else if (!(key in before)) out[key] = [after[key]];
      else {
        const d = coarseDelta(before[key], after[key]);
        if (d !== undefined) out[key] = d;
      }
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return sameJson(before, after) ? undefined : [before, after];
}

/**
 * Whether two JSON values are equal (objects whatever their key order, as jsonb stores them), without building
 * text: serializing both sides of a large ring to compare them holds the thread. Recursive: both payloads
 * passed the nesting limit (lib/json/depth.ts) where they arrived.
 */
function sameJson(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
  if (Array.isArray(x)) {
    if (!Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i] && !sameJson(x[i], y[i])) return false;
    return true;
  }
  if (Array.isArray(y)) return false;
  const xo = x as Record<string, unknown>;
  const yo = y as Record<string, unknown>;
  let n = 0;
  for (const key in xo) {
    if (!Object.hasOwn(yo, key) || !sameJson(xo[key], yo[key])) return false;
    n++;
  }
  return n === Object.keys(yo).length;
}

export interface Change {
  /** JSON-pointer-like path ("/feature/geometry/coordinates/0/2"), "" for the whole document */
  path: string;
  kind: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
}

const escape = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** Flattens a delta into changes, at most `limit` of them (a geometry edit can touch thousands of numbers). */
export function flattenDelta(delta: Delta, limit = 200): { changes: Change[]; truncated: boolean } {
  const changes: Change[] = [];
  let truncated = false;
  const walk = (d: Delta, path: string) => {
    if (d === undefined) return;
    if (changes.length >= limit) {
      truncated = true;
      return;
    }
    if (Array.isArray(d)) {
      if (d.length === 1) changes.push({ path, kind: "added", after: d[0] });
      else if (d.length === 2) changes.push({ path, kind: "changed", before: d[0], after: d[1] });
      else if (d[2] === 0) changes.push({ path, kind: "removed", before: d[0] });
      else if (d[2] === 2) changes.push({ path, kind: "changed", before: "(text)", after: "(text diff)" });
      return;
    }
    const isArray = (d as { _t?: string })._t === "a";
    for (const [key, value] of Object.entries(d)) {
      if (key === "_t") continue;
      // In an array delta "_3" names index 3 of the left side (a removal), "3" index 3 of the right side.
      const index = isArray && key.startsWith("_") ? key.slice(1) : key;
      walk(value as Delta, `${path}/${escape(index)}`);
    }
  };
  walk(delta, "");
  // Arrays of plain values diff as "removed at i" + "added at i": say "changed" instead.
  const merged: Change[] = [];
  const byPath = new Map<string, Change>();
  for (const c of changes) {
    const other = byPath.get(c.path);
    const pair = other ? [other, c] : [];
    const removed = pair.find((x) => x.kind === "removed");
    const added = pair.find((x) => x.kind === "added");
    if (other && removed && added) {
      const { before } = removed,
        { after } = added;
      Object.assign(other, { kind: "changed", before, after });
      continue;
    }
    byPath.set(c.path, c);
    merged.push(c);
  }
  merged.sort((a, b) => a.path.localeCompare(b.path, "en", { numeric: true }));
  return { changes: merged, truncated };
}

/**
 * The changes between two payloads, for people: a list of positions (a ring, a line) is compared as geometry, so
 * one deleted, inserted or moved vertex is one change (position-diff.ts) where an index-wise diff listed every
 * position after it; everything else as jsondiffpatch sees it (the audit trail stores its delta, payloadDelta).
 */
export function payloadChanges(before: JsonValue | null, after: JsonValue | null, limit = 200): { changes: Change[]; truncated: boolean } {
  const changes: Change[] = [];
  let truncated = false;
  const push = (c: Change) => {
    if (changes.length >= limit) truncated = true;
    else changes.push(c);
  };
  const walk = (b: JsonValue | undefined, a: JsonValue | undefined, path: string) => {
    if (truncated) return;
    if (isPositionList(b) && isPositionList(a)) {
      for (const e of diffPositions(b, a)) {
        if (e.kind === "moved") push({ path: `${path}/${e.afterIndex}`, kind: "changed", before: e.before, after: e.after });
        else if (e.kind === "deleted") push({ path: `${path}/${e.beforeIndex}`, kind: "removed", before: e.before });
        else push({ path: `${path}/${e.afterIndex}`, kind: "added", after: e.after });
      }
      return;
    }
    if (isObject(b) && isObject(a)) {
      for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) walk(b[key], a[key], `${path}/${escape(key)}`);
      return;
    }
    if (Array.isArray(b) && Array.isArray(a) && b.length === a.length) {
      b.forEach((v, i) => walk(v, a[i], `${path}/${i}`));
      return;
    }
    if (b === undefined && a === undefined) return;
    if (b === undefined) return push({ path, kind: "added", after: a });
    if (a === undefined) return push({ path, kind: "removed", before: b });
    // Arrays of other lengths (and anything else): jsondiffpatch's own answer, under this path.
    const rest = flattenDelta(payloadDelta(b, a), limit - changes.length);
    for (const c of rest.changes) push({ ...c, path: path + c.path });
    if (rest.truncated) truncated = true;
  };
  walk(before ?? undefined, after ?? undefined, "");
  changes.sort((x, y) => x.path.localeCompare(y.path, "en", { numeric: true }));
  return { changes, truncated };
}
