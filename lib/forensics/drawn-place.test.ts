import { describe, expect, it } from "vitest";
import { boxOfPositions, boxRing, circleRing, placeFromParams, placeParams, pointOf, wrapLon } from "./drawn-place";
import { distanceKm } from "./place";

describe("drawn place", () => {
  it("wraps longitudes from any world copy onto the main one", () => {
    expect(wrapLon(190)).toBe(-170);
    expect(wrapLon(-181)).toBe(179);
    expect(wrapLon(540)).toBe(180);
    expect(wrapLon(-180)).toBe(-180);
    expect(wrapLon(12.5)).toBe(12.5);
  });

  it("covers a drawn rectangle with its box, whatever corner the drag started from", () => {
    const ring = [
      [2.4, 48.9],
      [2.2, 48.9],
      [2.2, 48.8],
      [2.4, 48.8],
      [2.4, 48.9],
    ];
    expect(boxOfPositions(ring)).toEqual([2.2, 48.8, 2.4, 48.9]);
    expect(boxOfPositions([])).toBeNull();
  });

  it("brings a box drawn on a world copy back, and keeps one straddling ±180° whole (east edge past 180)", () => {
    expect(
      boxOfPositions([
        [362.2, 48.8],
        [362.4, 48.9],
      ]),
    ).toEqual([2.2, 48.8, 2.4, 48.9]);
    expect(
      boxOfPositions([
        [170, -10],
        [200, 10],
      ]),
    ).toEqual([170, -10, 200, 10]);
    expect(
      boxOfPositions([
        [-190, -10],
        [-160, 10],
      ]),
    ).toEqual([170, -10, 200, 10]);
    expect(
      boxOfPositions([
        [150, -10],
        [185, 10],
      ]),
    ).toEqual([150, -10, 185, 10]);
    expect(
      boxOfPositions([
        [-400, -95],
        [400, 95],
      ]),
    ).toEqual([-180, -90, 180, 90]);
  });

  it("rounds as every coordinate shown (5 decimals) and keeps points on the main copy", () => {
    expect(pointOf([362.123456789, 48.987654321])).toEqual({ lon: 2.12346, lat: 48.98765 });
    // float32 noise from the drawing (one float32 step at 44 is 3.8e-6) does not reach the form
    expect(
      boxOfPositions([
        [2.000004, 44.000004],
        [3, 45],
      ]),
    ).toEqual([2, 44, 3, 45]);
    expect(pointOf([Number.NaN, 1])).toBeNull();
  });

  it("round-trips through the form's parameters and rejects what the API would refuse", () => {
    const box = { type: "bbox" as const, bbox: [2.2, 48.8, 2.4, 48.9] as [number, number, number, number] };
    expect(placeParams(box)).toEqual({ bbox: "2.2,48.8,2.4,48.9", near: "" });
    expect(placeFromParams(placeParams(box).bbox, "")).toEqual(box);
    expect(placeFromParams("", "2.35,48.85")).toEqual({ type: "near", lon: 2.35, lat: 48.85 });
    expect(placeFromParams("2.4,48.8,2.2,48.9", "")).toBeNull();
    expect(placeFromParams("2.2,48.8,2.4", "")).toBeNull();
    expect(placeFromParams("", "2.35,")).toBeNull();
    expect(placeFromParams("", "")).toBeNull();
  });

  it("draws a box as a closed ring and a radius as a true circle", () => {
    expect(boxRing([0, 1, 2, 3])).toEqual([
      [0, 1],
      [2, 1],
      [2, 3],
      [0, 3],
      [0, 1],
    ]);
    const ring = circleRing(2.35, 48.85, 5, 32);
    expect(ring).toHaveLength(33);
    expect(ring[32]).toEqual(ring[0]);
    for (const [lon, lat] of ring) expect(distanceKm(2.35, 48.85, lon, lat)).toBeCloseTo(5, 2);
  });
});
