import { describe, expect, it } from "vitest";
import { parseLossless, toPlainJson } from "../json/lossless";
import { originalGeometry, receivedGeometry } from "./received";

const bowtie = {
  type: "Polygon",
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
const envelope = (geometry: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    kind: "spatial",
    idempotency_key: "k",
    observed_at: 1,
    feature: { type: "Feature", geometry, properties: {} },
    ...extra,
  });

describe("receivedGeometry", () => {
  it("reads the envelope's geometry as ingest stored it", () => {
    expect(receivedGeometry(envelope(bowtie))).toEqual(bowtie);
    const merc = receivedGeometry(envelope({ type: "Point", coordinates: [1113194.91, 0] }, { crs: "EPSG:3857" })) as {
      coordinates: number[];
    };
    expect(merc.coordinates[0]).toBeCloseTo(10, 6);
  });

  it("keeps what cannot be read as sent, and gives up on an unreadable envelope", () => {
    expect(receivedGeometry(envelope("POLYGON((0 0, 1 1, 1 0, 0 0))"))).toBe("POLYGON((0 0, 1 1, 1 0, 0 0))");
    expect(receivedGeometry(envelope(null))).toBeNull();
    expect(receivedGeometry("{not json")).toBeUndefined();
    expect(receivedGeometry(null)).toBeUndefined();
  });
});

describe("originalGeometry", () => {
  it("is null while the payload still holds the received geometry (in whatever key order jsonb gives it back)", () => {
    expect(
      originalGeometry(envelope(bowtie), { geometry: { coordinates: bowtie.coordinates, type: "Polygon" }, type: "Feature" }),
    ).toBeNull();
  });

  it("reads numbers as ingest did: a long lexeme in an unusable geometry is not taken for an edit", () => {
    const raw = '{"kind":"spatial","feature":{"type":"Feature","geometry":{"type":"Polygn","coordinates":[10.1234567890123456789,20]}}}';
    const stored = toPlainJson((parseLossless(raw) as { feature: { geometry: unknown } }).feature.geometry);
    expect(originalGeometry(raw, { type: "Feature", geometry: stored })).toBeNull();
  });

  it("is the received geometry once an edit changed the payload's", () => {
    const edited = {
      type: "Feature",
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 0],
          ],
        ],
      },
    };
    expect(originalGeometry(envelope(bowtie), edited)).toEqual(bowtie);
    expect(originalGeometry(envelope(bowtie), {})).toEqual(bowtie);
    expect(originalGeometry(null, edited)).toBeNull();
  });
});
