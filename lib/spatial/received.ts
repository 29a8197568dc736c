// The geometry a spatial record arrived with, for the record page's "As received" map once an analyst has edited
// the payload: the payload then holds the edit, the raw envelope still holds what the producer sent. Read the way
// ingest read it (lib/spatial/normalize-envelope.ts): parsed, reprojected to EPSG:4326 when it parses and is in range for
// its CRS, otherwise as sent (the map then explains why it cannot draw it). No GEOS: nothing is validated here.
import { isJsonObject, parseLossless, toPlainJson } from "../json/lossless";
import { canonicalJson } from "../json/canonical";
import type { JsonValue } from "@/lib/json/value";
import { findOutOfRange, resolveCrs, toWgs84 } from "./crs";
import { geometryToJson, parseGeometry } from "./geojson";

/** The envelope's feature geometry as ingest stored it in the payload; undefined when the envelope is unreadable. */
export function receivedGeometry(rawEnvelope: string | null): JsonValue | undefined {
  if (rawEnvelope === null) return undefined;
  let envelope: unknown;
  try {
    envelope = parseLossless(rawEnvelope); // as ingest parsed it: number lexemes kept
  } catch {
    return undefined;
  }
  if (!isJsonObject(envelope) || !isJsonObject(envelope.feature)) return undefined;
  const geometry = envelope.feature.geometry ?? null;
  const crs = resolveCrs(envelope.crs);
  const parsed = parseGeometry(geometry);
  if (!crs.ok || !parsed.ok || findOutOfRange(parsed.geometry, crs.crs)) return toPlainJson(geometry);
  return geometryToJson(toWgs84(parsed.geometry, crs.crs));
}

/**
 * The received geometry when the payload's geometry is no longer it (the analyst edited it), else null: most
 * records are unedited, and their page draws the payload as before.
 */
export function originalGeometry(rawEnvelope: string | null, payload: JsonValue | null): JsonValue | null {
  const received = receivedGeometry(rawEnvelope);
  if (received === undefined) return null;
  const current = isJsonObject(payload) ? (payload.geometry ?? null) : null;
  try {
    return canonicalJson(received) === canonicalJson(current) ? null : received;
  } catch {
    return received; // not canonicalizable (a lone surrogate in a property?): say it differs, draw what was sent
  }
}
