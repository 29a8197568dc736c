"use client";

import { useEffect } from "react";

// While the analyst reads the list, the browser is idle: fetch and evaluate what a record's page needs before
// its maps can draw — the maps panel's chunk, MapLibre with its (prewarmed) worker, and the parsed Natural Earth
// basemap — so a click on a row waits for the record only. Measured on the e2e build (tests/e2e/triage-timing):
// the first record opened from the list spent ~0.8 s fetching the panel's chunk before a map was mounted.
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
