import { beforeAll, describe, expect, it } from "vitest";
import { getGeos, type Geos } from "../../spatial/geos";
import { deliveredGeometry, geometryDigest, pinRepair } from "./approved-repair";

let geos: Geos;
beforeAll(async () => {
  geos = await getGeos();
});

const starRing = [0, 2, 4, 1, 3, 0].map((k) => {
  const a = Math.PI / 2 + (k * 2 * Math.PI) / 5;
  return [Math.cos(a), Math.sin(a)];
});
const feature = (geometry: unknown) => ({ type: "Feature", properties: {}, geometry });
const star = feature({ type: "Polygon", coordinates: [starRing] });
const square = feature({
  type: "Polygon",
  coordinates: [
    [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 1],
      [0, 0],
    ],
  ],
});

describe("the approved repair", () => {
  it("the digest ignores key order and spacing", () => {
    expect(geometryDigest({ type: "Point", coordinates: [1, 2] })).toBe(geometryDigest({ coordinates: [1, 2], type: "Point" }));
    expect(geometryDigest({ type: "Point", coordinates: [1, 2] })).not.toBe(geometryDigest({ type: "Point", coordinates: [2, 1] }));
  });

  it("a star repaired by linework and by structure delivers different geometries: the pin tells them apart", () => {
    const linework = pinRepair(geos, star, { method: "linework", policy: "accept" });
    const structure = pinRepair(geos, star, { method: "structure", policy: "accept" });
    expect(linework.ok && structure.ok).toBe(true);
    if (!linework.ok || !structure.ok) return;
    expect(linework.pin.outcome).toBe("repaired");
    expect(linework.pin.digest).not.toBe(structure.pin.digest);
    // linework keeps what the ring encloses an odd number of times: the five tips, not the centre.
    expect(linework.delivered.result.analysis.type_after).toBe("MultiPolygon");
    expect(structure.delivered.result.analysis.type_after).toBe("Polygon");
  });

  it("a valid geometry is delivered as received, whatever the repair", () => {
    const a = deliveredGeometry(geos, square, { method: "linework", policy: "accept" });
    const b = deliveredGeometry(geos, square, { method: "structure", policy: "drop" });
    expect(a.ok && b.ok && a.outcome).toBe("valid");
    if (a.ok && b.ok) expect(geometryDigest(a.geometry)).toBe(geometryDigest(b.geometry));
  });

  it("a repair that delivers nothing pins nothing", () => {
    expect(pinRepair(geos, star, { method: "linework", policy: "drop" }).ok).toBe(false);
    expect(pinRepair(geos, { type: "Nope" }, { method: "linework", policy: "accept" }).ok).toBe(false);
  });
});
