// MapLibre is ~1 MB of JavaScript: loaded on demand by the one component that shows a map, never at first load
// and never on the server. Its worker is a separate module; under Turbopack the URL MapLibre derives for it
// from its own chunk is wrong ("Worker failed to load"), so it is set explicitly, once, to the bundled file.
//
// prewarm(): MapLibre terminates its worker when the last map is removed, so going from the list (its map) to a
// record (two new maps) booted a fresh worker — fetching and compiling ~520 kB of worker code — between the
// click and the first tile. Prewarmed, the worker lives as long as the tab, and every map after the first finds
// it ready.

type MapLibre = typeof import("maplibre-gl");

let loading: Promise<MapLibre> | null = null;

export function loadMapLibre(): Promise<MapLibre> {
  loading ??= import("maplibre-gl")
    .then((ml) => {
      ml.setWorkerUrl(new URL("maplibre-gl/dist/maplibre-gl-worker.mjs", import.meta.url).toString());
      ml.prewarm();
      return ml;
    })
    .catch((err: unknown) => {
      loading = null; // let the next map try again (a chunk that failed to load on a flaky connection)
      throw err;
    });
  return loading;
}
