import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { FeatureCollection } from "geojson";
import { feature } from "topojson-client";
import type { Topology } from "topojson-specification";
import { describe, expect, it } from "vitest";
import {
  displayBBox,
  fitBox,
  linesOf,
  markerAt,
  MAX_MERCATOR_LAT,
  nearestCopy,
  partsOf,
  prepareBasemap,
  readDisplayGeometry,
  unwrapForDisplay,
  verticesOf,
} from "./display";
import type { Geometry } from "./geojson";

const bowtie: Geometry = {
  type: "Polygon",
  coordinates: [
    [
      [0, 0],
      [1, 1],
      [1, 0],
      [0, 1],
      [0, 0],
    ],
  ],
};

describe("readDisplayGeometry", () => {
  it("takes the geometry out of a Feature", () => {
    const r = readDisplayGeometry({ type: "Feature", geometry: bowtie, properties: {} });
    expect(r).toEqual({ ok: true, geometry: bowtie });
  });

  it.each([
    [null, "null"],
    [{ type: "Feature", geometry: null }, "null"],
    [{ type: "Polygn", coordinates: [] }, "cannot be parsed"],
    [{ type: "Polygon", coordinates: "POLYGON((0 0, 1 1))" }, "cannot be parsed"],
    [{ type: "Polygon", coordinates: [] }, "empty"],
    [
      {
        type: "Polygon",
        coordinates: [
          [
            [2e6, 6e6],
            [2.1e6, 6e6],
            [2e6, 6.1e6],
            [2e6, 6e6],
          ],
        ],
      },
      "out of range",
    ],
  ])("explains why %j cannot be drawn", (value, words) => {
    const r = readDisplayGeometry(value);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(words);
  });
});

describe("unwrapForDisplay", () => {
  it("keeps a ring crossing the antimeridian continuous", () => {
    const ring: Geometry = {
      type: "Polygon",
      coordinates: [
        [
          [179.9, -17],
          [-179.9, -17],
          [-179.9, -16],
          [179.9, -16],
          [179.9, -17],
        ],
      ],
    };
    const out = unwrapForDisplay(ring);
    expect(out).toEqual({
      type: "Polygon",
      coordinates: [
        [
          [179.9, -17],
          [180.1, -17],
          [180.1, -16],
          [179.9, -16],
          [179.9, -17],
        ],
      ],
    });
    const box = displayBBox([out])!;
    expect(box[2] - box[0]).toBeCloseTo(0.2);
  });

  it("moves the parts of a repair split at ±180 next to the reference", () => {
    const split: Geometry = {
      type: "MultiPolygon",
      coordinates: [
        [
          [
            [179.9, 0],
            [180, 0],
            [180, 1],
            [179.9, 1],
            [179.9, 0],
          ],
        ],
        [
          [
            [-180, 0],
            [-179.9, 0],
            [-179.9, 1],
            [-180, 1],
            [-180, 0],
          ],
        ],
      ],
    };
    const out = unwrapForDisplay(split, 179.9);
    const box = displayBBox([out])!;
    expect(box[0]).toBeCloseTo(179.9);
    expect(box[2]).toBeCloseTo(180.1);
  });

  it("leaves ordinary geometry alone and handles collections", () => {
    const gc: Geometry = { type: "GeometryCollection", geometries: [bowtie, { type: "Point", coordinates: [0.5, 0.5] }] };
    expect(unwrapForDisplay(gc)).toEqual(gc);
    expect(nearestCopy(-179, 179)).toBe(181);
  });
});

describe("layers' data", () => {
  it("draws a bowtie's ring as a line and each vertex once", () => {
    expect(linesOf(bowtie).features).toHaveLength(1);
    const v = verticesOf(bowtie).features;
    expect(v).toHaveLength(4);
    expect(v.map((f) => f.properties.index)).toEqual([0, 1, 2, 3]);
  });

  it("numbers parts of multi geometries and collections", () => {
    const g: Geometry = {
      type: "GeometryCollection",
      geometries: [
        { type: "MultiPolygon", coordinates: [bowtie.coordinates, bowtie.coordinates] },
        {
          type: "MultiLineString",
          coordinates: [
            [
              [0, 0],
              [1, 1],
            ],
          ],
        },
        {
          type: "MultiPoint",
          coordinates: [
            [0, 0],
            [2, 2],
          ],
        },
      ],
    };
    expect(partsOf(g).features.map((f) => [f.properties.part, f.properties.kind])).toEqual([
      [0, "polygon"],
      [1, "polygon"],
      [2, "line"],
      [3, "point"],
      [4, "point"],
    ]);
    expect(linesOf(g).features).toHaveLength(3);
    expect(verticesOf(g).features).toHaveLength(4 + 4 + 2 + 2);
  });

  it("widens a point's box and clamps latitude", () => {
    expect(fitBox([10, 20, 10, 20], 0.01)).toEqual([
      [9.995, 19.995],
      [10.005, 20.005],
    ]);
    expect(fitBox([0, -90, 1, 90])[0][1]).toBe(-MAX_MERCATOR_LAT);
  });

  it("puts the error marker on the geometry's world copy", () => {
    expect(markerAt([-179.95, 1], 179.9).features[0]?.geometry.coordinates).toEqual([180.05, 1]);
    expect(markerAt(null, 0).features).toEqual([]);
  });
});

describe("prepareBasemap", () => {
  it("keeps every Natural Earth country within one world width and the Mercator limit", () => {
    const require = createRequire(import.meta.url);
    const topo = JSON.parse(readFileSync(require.resolve("world-atlas/countries-110m.json"), "utf8")) as Topology;
    const fc = feature(topo, topo.objects.countries!) as FeatureCollection;
    const land = prepareBasemap(fc);
    expect(land.features.length).toBeGreaterThan(150);
    for (const f of land.features) {
      const polys = f.geometry.type === "Polygon" ? [f.geometry.coordinates] : f.geometry.coordinates;
      for (const poly of polys) {
        for (const ring of poly) {
          const xs = ring.map((p) => p[0]!);
          // A ring streaking across the map would span ~360°; the widest real one (Antarctica) spans exactly 360.
          expect(Math.max(...xs) - Math.min(...xs)).toBeLessThanOrEqual(360);
          for (const p of ring) expect(Math.abs(p[1]!)).toBeLessThanOrEqual(MAX_MERCATOR_LAT);
          for (let i = 1; i < ring.length; i++) {
            const a = ring[i - 1]!,
              b = ring[i]!;
            const seam = Math.abs(a[0]!) === 180 && Math.abs(b[0]!) === 180;
            if (!seam) expect(Math.abs(b[0]! - a[0]!)).toBeLessThanOrEqual(180);
          }
        }
      }
    }
  });
});
