// Real places for the demo's spatial features (lon, lat in EPSG:4326) and transit stations for AFC devices.
export const PLACES: readonly { name: string; lon: number; lat: number }[] = [
  { name: "paris", lon: 2.3522, lat: 48.8566 },
  { name: "london", lon: -0.1276, lat: 51.5072 },
  { name: "berlin", lon: 13.405, lat: 52.52 },
  { name: "madrid", lon: -3.7038, lat: 40.4168 },
  { name: "rome", lon: 12.4964, lat: 41.9028 },
  { name: "amsterdam", lon: 4.9041, lat: 52.3676 },
  { name: "zurich", lon: 8.5417, lat: 47.3769 },
  { name: "vienna", lon: 16.3738, lat: 48.2082 },
  { name: "new-york", lon: -74.006, lat: 40.7128 },
  { name: "chicago", lon: -87.6298, lat: 41.8781 },
  { name: "sao-paulo", lon: -46.6333, lat: -23.5505 },
  { name: "nairobi", lon: 36.8219, lat: -1.2921 },
  { name: "cape-town", lon: 18.4241, lat: -33.9249 },
  { name: "mumbai", lon: 72.8777, lat: 19.076 },
  { name: "tokyo", lon: 139.6917, lat: 35.6895 },
  { name: "sydney", lon: 151.2093, lat: -33.8688 },
  { name: "auckland", lon: 174.7633, lat: -36.8485 },
];

/** Places whose features straddle the 180° meridian. */
export const ANTIMERIDIAN_PLACES: readonly { name: string; lon: number; lat: number }[] = [
  { name: "taveuni-fiji", lon: 179.95, lat: -16.85 },
  { name: "chukotka", lon: 179.9, lat: 66.5 },
  { name: "chatham-islands", lon: -179.95, lat: -44.0 },
];

export const STATIONS: readonly string[] = [
  "central",
  "harbour",
  "university",
  "airport",
  "stadium",
  "old-town",
  "riverside",
  "market",
  "north-gate",
  "west-end",
];

export const SPATIAL_SOURCES = ["parcels.v2", "field-survey", "fleet-geofences", "flood-zones"] as const;
export const AFC_SOURCES = ["gates.metro", "validators.bus", "tram.readers"] as const;
