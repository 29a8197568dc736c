// The one import site of the maps panel's chunk: the record's page loads it with next/dynamic and the list
// preloads it while idle. Two import() calls of the same module may be given two different async chunks by the
// bundler, and then preloading one does not spare fetching the other.
export const loadMapsPanel = () => import("./maps-panel").then((m) => m.MapsPanel);
