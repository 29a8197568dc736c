import { describe, expect, it } from "vitest";
import { underzoomConstrain } from "./map-pool";

class LngLat {
  constructor(
    readonly lng: number,
    readonly lat: number,
  ) {}
}
const ml = { LngLat } as unknown as Parameters<typeof underzoomConstrain>[3];

describe("the maps' constraint", () => {
  it("lets a tall map zoom out until the whole world fits its width, centred on the equator", () => {
    // 836 px tall: MapLibre held such a map at zoom ≥ 0.71 (a 836 px world); fitting 268° into 264 px needs −0.53.
    expect(underzoomConstrain({ lng: 46, lat: 4 }, -0.53, 836, ml)).toEqual({ center: new LngLat(46, 0), zoom: -0.53 });
    expect(underzoomConstrain({ lng: 0, lat: 0 }, -5, 836, ml).zoom).toBe(-2);
  });

  it("keeps the poles out of view once the world is taller than the map", () => {
    const c = underzoomConstrain({ lng: 10, lat: 89 }, 1, 800, ml); // world 1024 px, view 800: the centre at least 400 px below the top
    expect(c.zoom).toBe(1);
    expect(c.center.lat).toBeLessThan(89);
    expect(c.center.lat).toBeCloseTo(36.6, 1); // the top edge of the view on the top edge of the world
    expect(underzoomConstrain({ lng: 10, lat: 40 }, 4, 800, ml).center).toEqual(new LngLat(10, 40));
  });
});
