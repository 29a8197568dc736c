import { describe, expect, it } from "vitest";
import { IDENTITY_FIELDS as HASH_FIELDS } from "../../afc/hash";
import { IDENTITY_FIELDS, identityChanges, identityRefusal } from "./identity-guard";
import { payloadChanges } from "../query/payload-diff";

const tap = { event_id: "e1", device_id: "d1", tap_timestamp: "2026-11-05T08:00:00Z", fare_amount_cents: 275, battery_pct: 4 };

describe("identity rule", () => {
  it("uses exactly the fields the event hash is computed from", () => {
    expect([...IDENTITY_FIELDS].sort()).toEqual([...HASH_FIELDS].sort());
  });

  it("allows edits that leave the identity alone", () => {
    const { battery_pct: _drop, ...fixed } = tap;
    expect(identityChanges(tap, fixed)).toEqual([]);
  });

  it("names every changed identity field; missing equals null, as in the hash", () => {
    expect(identityChanges(tap, { ...tap, fare_amount_cents: 280, event_id: "e2" })).toEqual(["event_id", "fare_amount_cents"]);
    expect(identityChanges({ device_id: null }, {})).toEqual([]);
    expect(identityChanges({ event_id: "x" }, {})).toEqual(["event_id"]);
    expect(identityChanges({ fare_amount_cents: "275" }, { fare_amount_cents: 280 })).toEqual(["fare_amount_cents"]);
  });

  // Issue #4: "an analyst may fix a tap (strip a key, coerce a string fare) before replay" — the same fare as a
  // number is the same tap; the stored hash (of the string) travels unchanged either way.
  it.each([
    ["275", 275],
    [" 275 ", 275],
    ["275.0", 275],
    ["-5", -5],
  ])("lets a string fare %j be coerced to the number %j", (before, after) => {
    expect(identityChanges({ ...tap, fare_amount_cents: before }, { ...tap, fare_amount_cents: after })).toEqual([]);
  });

  it.each([
    ["275", 276],
    ["abc", 275],
    ["0x113", 275],
    ["", 0],
    [275, "275"],
  ])("still calls %j → %j an identity change", (before, after) => {
    expect(identityChanges({ ...tap, fare_amount_cents: before }, { ...tap, fare_amount_cents: after })).toEqual(["fare_amount_cents"]);
  });

  it("says why in words", () => {
    expect(identityRefusal(["fare_amount_cents"], "abcdef0123456789")).toBe(
      "fare_amount_cents is an identity field: changing it makes this a different tap (its key abcdef012345… stays); a supervisor must override with a reason",
    );
  });
});

describe("payload changes", () => {
  it("lists added, removed and changed members by path", () => {
    const { changes, truncated } = payloadChanges(tap, { ...tap, fare_amount_cents: "275", battery_pct: undefined as never, note: "x" });
    expect(truncated).toBe(false);
    expect(changes).toEqual([
      { path: "/battery_pct", kind: "removed", before: 4 },
      { path: "/fare_amount_cents", kind: "changed", before: 275, after: "275" },
      { path: "/note", kind: "added", after: "x" },
    ]);
  });

  it("paths into arrays and truncates long diffs", () => {
    const ring = (n: number) => Array.from({ length: n }, (_, i) => [i, i]);
    const { changes } = payloadChanges(
      { c: ring(3) },
      {
        c: [
          [0, 0],
          [1, 5],
          [2, 2],
        ],
      },
    );
    // A list of positions is geometry: the moved position is the change, not its one number.
    expect(changes).toEqual([{ path: "/c/1", kind: "changed", before: [1, 1], after: [1, 5] }]);
    const numbers = payloadChanges({ c: [1, 2, 3] }, { c: [1, 5, 3] });
    expect(numbers.changes).toEqual([{ path: "/c/1", kind: "changed", before: 2, after: 5 }]);
    const big = payloadChanges({ c: ring(500) }, { c: ring(500).map(([x, y]) => [x!, y! + 1]) }, 10);
    expect(big.changes.length).toBeGreaterThan(0);
    expect(big.changes.length).toBeLessThanOrEqual(10);
    expect(big.truncated).toBe(true);
  });
});

describe("payload changes of a geometry", () => {
  const feature = (coordinates: number[][]) => ({ type: "Feature", geometry: { type: "Polygon", coordinates: [coordinates] } });
  const square = [
    [0, 0],
    [4, 0],
    [4, 4],
    [2, 5],
    [0, 4],
    [0, 0],
  ];

  it("one deleted vertex is one change", () => {
    const { changes } = payloadChanges(feature(square), feature(square.filter((_, i) => i !== 2)));
    expect(changes).toEqual([{ path: "/geometry/coordinates/0/2", kind: "removed", before: [4, 4] }]);
  });

  it("one inserted and one moved vertex are two changes, beside a property change", () => {
    const after = [...square.slice(0, 1), [2, -1], ...square.slice(1)].map((p) => (p[0] === 2 && p[1] === 5 ? [2, 6] : p));
    const { changes } = payloadChanges(feature(square), { ...feature(after), properties: { fixed: true } });
    expect(changes).toEqual([
      { path: "/geometry/coordinates/0/1", kind: "added", after: [2, -1] },
      { path: "/geometry/coordinates/0/4", kind: "changed", before: [2, 5], after: [2, 6] },
      { path: "/properties", kind: "added", after: { fixed: true } },
    ]);
  });
});
