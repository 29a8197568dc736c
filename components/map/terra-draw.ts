"use client";

import { useEffect, type RefObject } from "react";
import type { TerraDraw } from "terra-draw";

// terra-draw on a MapView, shared by the geometry editor and the lookup's place picker: loaded only when a map
// wants to draw (it is not in any page's first load), and stopped when the component goes.

/** terra-draw and its MapLibre adapter, loaded on demand. */
export async function loadTerraDraw() {
  const [draw, adapter] = await Promise.all([import("terra-draw"), import("terra-draw-maplibre-gl-adapter")]);
  return { ...draw, TerraDrawMapLibreGLAdapter: adapter.TerraDrawMapLibreGLAdapter };
}

/** Stops the component's TerraDraw instance (held in `draw`) on unmount. */
export function useStopDrawOnUnmount(draw: RefObject<TerraDraw | null>): void {
  useEffect(
    () => () => {
      try {
        draw.current?.stop();
      } catch {
        // the map may already be gone
      }
      draw.current = null;
    },
    [draw],
  );
}
