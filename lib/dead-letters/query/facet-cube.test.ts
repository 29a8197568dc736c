import { describe, expect, it } from "vitest";
import { facetsFromCube, nonFacetFilter, rollupCanCount, splitByDay, type CubeCell } from "./facet-cube";

const cell = (kind: string, status: string, source: string, reason: string, n: number, failure_class = "transient"): CubeCell => ({
  kind,
  status,
  failure_class,
  source,
  reason_group: reason,
  n,
});

const cube = [
  cell("spatial", "pending", "parcels", "Self-intersection", 10),
  cell("spatial", "approved", "parcels", "Self-intersection", 3),
  cell("afc", "pending", "gates", "fare: Expected integer", 7, "transient_schema"),
  cell("afc", "quarantined", "gates", "event_id: Required", 2, "poison"),
];

describe("facetsFromCube", () => {
  it("counts everything without a filter", () => {
    const f = facetsFromCube(cube, {}, true);
    expect(f.total).toBe(22);
    expect(f.kind).toEqual([
      { value: "spatial", count: 13 },
      { value: "afc", count: 9 },
    ]);
    expect(f.reason[0]).toEqual({ value: "Self-intersection", count: 13 });
  });

  it("counts each facet with the other facets' selections but not its own", () => {
    const f = facetsFromCube(cube, { status: ["pending"], kind: ["afc"] }, true);
    expect(f.total).toBe(7);
    expect(f.status).toEqual([
      { value: "pending", count: 7 },
      { value: "quarantined", count: 2 },
    ]);
    expect(f.kind).toEqual([
      { value: "spatial", count: 10 },
      { value: "afc", count: 7 },
    ]);
    expect(f.source).toEqual([{ value: "gates", count: 7 }]);
  });

  it("keeps a selected value visible with 0 and scales sampled counts", () => {
    const f = facetsFromCube(cube, { source: ["nowhere"] }, false, 10);
    expect(f.total).toBe(0);
    expect(f.source).toContainEqual({ value: "nowhere", count: 0 });
    expect(f.kind).toEqual([]);
    expect(facetsFromCube(cube, {}, false, 10).total).toBe(220);
  });

  it("leaves only time, search, viewport and broker source for the SQL", () => {
    expect(nonFacetFilter({ kind: ["afc"], status: ["pending"], q: "x", bbox: [0, 0, 1, 1], reason: "r", origin: "orders-dlq" })).toEqual({
      q: "x",
      bbox: [0, 0, 1, 1],
      origin: "orders-dlq",
    });
  });

  it("counts from the rollup only what it holds: facet columns and time", () => {
    expect(rollupCanCount(nonFacetFilter({ kind: ["afc"], source: ["gates"], from: "2026-11-05T00:00:00.000000Z" }))).toBe(true);
    expect(rollupCanCount({ to: undefined })).toBe(true);
    // The rollup has no origin column: counting a source's records from it would count every source's.
    expect(rollupCanCount(nonFacetFilter({ status: ["pending"], origin: "orders-dlq" }))).toBe(false);
    expect(rollupCanCount({ q: "x" })).toBe(false);
    expect(rollupCanCount({ bbox: [0, 0, 1, 1] })).toBe(false);
  });
});

describe("splitByDay", () => {
  const d = (s: string) => s;
  it("takes whole days from the rollup", () => {
    expect(splitByDay(d("2026-11-05T00:00:00.000000Z"), d("2026-11-06T23:59:59.999999Z"))).toEqual({
      firstDay: "2026-11-05",
      lastDay: "2026-11-06",
      anyDay: true,
      edges: [],
    });
    // a day's last millisecond is not its last microsecond: .999xxx would be missed, so that day is an edge
    expect(splitByDay(d("2026-11-05T00:00:00.000000Z"), d("2026-11-06T23:59:59.999000Z"))).toEqual({
      firstDay: "2026-11-05",
      lastDay: "2026-11-05",
      anyDay: true,
      edges: [{ from: "2026-11-06T00:00:00.000000Z", to: "2026-11-06T23:59:59.999000Z" }],
    });
    expect(splitByDay(undefined, undefined)).toEqual({ firstDay: null, lastDay: null, anyDay: true, edges: [] });
  });

  it("counts partial days at the ends directly", () => {
    const s = splitByDay(d("2026-11-05T12:00:00.000000Z"), d("2026-11-07T06:00:00.000000Z"));
    expect(s.firstDay).toBe("2026-11-06");
    expect(s.lastDay).toBe("2026-11-06");
    expect(s.edges).toEqual([
      { from: "2026-11-05T12:00:00.000000Z", to: "2026-11-05T23:59:59.999999Z" },
      { from: "2026-11-07T00:00:00.000000Z", to: "2026-11-07T06:00:00.000000Z" },
    ]);
  });

  it("handles a range inside one day", () => {
    expect(splitByDay(d("2026-11-05T01:00:00.000000Z"), d("2026-11-05T02:00:00.000000Z"))).toMatchObject({ anyDay: false, edges: [{}] });
    expect(splitByDay(d("2026-12-31T12:00:00.000000Z"), d("2027-01-01T12:00:00.000000Z"))).toEqual({
      firstDay: null,
      lastDay: null,
      anyDay: false,
      edges: [{ from: "2026-12-31T12:00:00.000000Z", to: "2027-01-01T12:00:00.000000Z" }],
    });
  });
});
