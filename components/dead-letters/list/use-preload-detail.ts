"use client";

import { useEffect } from "react";

// While the analyst reads the list, the browser is idle: fetch and evaluate what a record's page needs before
// its maps can draw — the maps panel's chunk, MapLibre with its (prewarmed) worker, and the parsed Natural Earth
// basemap — so a click on a row waits for the record only, not for the panel's chunk before a map is mounted
// (tests/e2e/triage-timing).
// Everything is imported dynamically here too, so none of it joins the list's first-load JavaScript.

export function usePreloadDetail(): void {
  useEffect(() => {
    let cancelled = false;
    const run = () => {
      if (cancelled) return;
      const quiet = (what: string) => (err: unknown) => console.warn(`[preload] ${what}`, err);
      import("../detail/load-maps-panel").then((m) => m.loadMapsPanel()).catch(quiet("maps panel"));
      import("@/components/map/load-maplibre").then((m) => m.loadMapLibre()).catch(quiet("maplibre"));
      import("@/components/map/basemap").then((m) => m.loadBasemap()).catch(quiet("basemap"));
      // The record's two maps, created now and parked (map-pool.ts), so that even the first record opened only
      // reattaches them. After the list's own map drew: they share its worker and CPU. The size is a guess at the
      // detail panel's; the record's page resizes them when it takes them.
      Promise.all([
        import("@/components/map/load-maplibre").then((m) => m.loadMapLibre()),
        import("@/components/map/map-pool"),
        import("@/components/map/basemap"),
      ])
        .then(async ([ml, pool, basemap]) => {
          await basemap.afterFirstDraws();
          if (!cancelled) pool.prewarmMaps(ml, 2, 400, 300);
        })
        .catch(quiet("maps"));
    };
    if (typeof window.requestIdleCallback === "function") {
      const id = window.requestIdleCallback(run, { timeout: 3_000 });
      return () => {
        cancelled = true;
        window.cancelIdleCallback(id);
      };
    }
    const id = window.setTimeout(run, 500);
    return () => {
      cancelled = true;
      window.clearTimeout(id);
    };
  }, []);
}
