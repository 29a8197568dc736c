import type { FeatureCollection } from "geojson";
import { describe, expect, it } from "vitest";
import { receivedLayers, receivedSources } from "./geometry-layers";

const star = {
  type: "Polygon" as const,
  coordinates: [
    [
      [0, 0],
      [2, 2],
      [2, 0],
      [0, 2],
      [0, 0],
    ],
  ],
};

describe("received map: self-intersections", () => {
  const crossings = Array.from({ length: 27 }, (_, i) => [1 + i * 1e-4, 1] as const);
  const features = Object.values(receivedSources(star, [1, 1], null, { crossings }))[0]!.data as FeatureCollection;

  it("draws each crossing with its own small ring, and only GEOS's one location with the large marker", () => {
    const roles = features.features.map((f) => f.properties?.role as string);
    expect(roles.filter((r) => r === "crossing")).toHaveLength(27);
    expect(roles.filter((r) => r === "marker")).toHaveLength(1);
  });

  it("rings crossings hollow and small, in both themes, so they do not cover the shape's centre", () => {
    for (const dark of [false, true]) {
      const layer = receivedLayers({ dark }).find((l) => l.id === "crossing-marker");
      expect(layer?.type).toBe("circle");
      const paint = (layer as { paint: Record<string, unknown> }).paint;
      expect(paint["circle-opacity"]).toBe(0);
      // radius by zoom: [interpolate, linear, zoom, z1, r1, z2, r2]
      const radius = paint["circle-radius"] as unknown[];
      expect(
        Math.max(
          ...radius
            .slice(3)
            .filter((_, i) => i % 2 === 1)
            .map(Number),
        ),
      ).toBeLessThanOrEqual(6);
      const marker = receivedLayers({ dark }).find((l) => l.id === "error-marker") as { paint: Record<string, unknown> };
      expect(
        radius
          .slice(3)
          .filter((_, i) => i % 2 === 1)
          .every((r) => Number(r) < Number(marker.paint["circle-radius"])),
      ).toBe(true);
    }
  });
});
