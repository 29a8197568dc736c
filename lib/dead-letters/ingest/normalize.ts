import { normalizeAfcRecord } from "../../afc/normalize-record";
import { nestsDeeperThan, parseProblem, TOO_DEEP } from "../../json/depth";
import { isJsonObject, parsePythonJson } from "../../json/lossless";
import { normalizeSpatialEnvelope } from "../../spatial/normalize-envelope";
import { geosBroken, getGeos } from "../../spatial/geos";
import type { GeometryLimits } from "../../spatial/geometry-limits";
import { suspectText } from "../../json/storable";
import { unstorableProblem } from "./storable-record";
import { prepareRecord, type PreparedRecord } from "../store/prepare-row";
import type { FieldError, RepairMethod, RepairPolicy } from "../../vocabulary/record";
import { decodeDeferred, type RecordText } from "./split";
import type { ArrivalRules } from "../store/arrival-facts";
import { arrivalFacts } from "./rule-facts";

// One record's text → a storable record or its field errors: parse (number lexemes kept), then the spatial or
// AFC normalizer. No database and nothing shared, so it runs on the main thread or in a worker thread
// (normalize-pool.ts) alike; everything it takes and returns survives structured cloning.

export interface SourceSettings {
  method: RepairMethod;
  policy: RepairPolicy;
  entityProperty?: string;
}

export const DEFAULT_SOURCE_SETTINGS: SourceSettings = { method: "linework", policy: "accept" };

export interface NormalizeSettings {
  /** per-source repair settings; sources not listed use `defaults` */
  sources?: Map<string, SourceSettings>;
  defaults?: SourceSettings;
  /** geometries past these are poison, never given to GEOS (default DEFAULT_GEOMETRY_LIMITS; env: geometryLimitsFromEnv) */
  limits?: GeometryLimits;
  /** the active triage rules: what they will ask of each record is gathered here (rule-facts.ts) */
  rules?: ArrivalRules;
}

/** A record ready to store (serialized here, so a worker thread hands over strings: see PreparedRecord) or its errors. */
export type Normalized =
  | { index: number; ok: true; record: PreparedRecord }
  /** `key`: the envelope's idempotency key when it parsed and has one, so a rejection can be found in the file */
  | { index: number; ok: false; errors: FieldError[]; key?: string };

/** A key as a result repeats it: a key far past any stored one's length is cut (it is rejected anyway). */
const shownKey = (key: string) => (key.length > 256 ? `${key.slice(0, 255)}…` : key);

export async function normalizeRecord(sent: RecordText, now: Date, opts: NormalizeSettings): Promise<Normalized> {
  const rec = sent.bytes ? { index: sent.index, ...decodeDeferred(sent.bytes) } : sent;
  if (rec.error !== undefined) return { index: rec.index, ok: false, errors: [{ path: "(root)", message: rec.error }] };
  let value: unknown;
  try {
    // As the producers' Python handler stored it: json.dumps writes a NaN or infinite float as a bare NaN /
    // Infinity, and such a coordinate or fare must reach the checks that give it its own reason.
    value = parsePythonJson(rec.text);
  } catch (e) {
    return { index: rec.index, ok: false, errors: [{ path: "(root)", message: parseProblem(e) }] };
  }
  if (!isJsonObject(value)) return { index: rec.index, ok: false, errors: [{ path: "(root)", message: "must be a JSON object" }] };
  // From here a rejection names the envelope's key too: "record 8 rejected" alone cannot be found in the file.
  const key = typeof value.idempotency_key === "string" && value.idempotency_key !== "" ? { key: shownKey(value.idempotency_key) } : {};
  if (nestsDeeperThan(value)) return { index: rec.index, ok: false, errors: [{ path: "(root)", message: TOO_DEEP }], ...key };
  const kind = value.kind;
  if (kind !== "spatial" && kind !== "afc")
    return { index: rec.index, ok: false, errors: [{ path: "kind", message: 'must be "spatial" or "afc"' }], ...key };
  let result;
  const geos = kind === "spatial" ? await getGeos() : null;
  try {
    if (geos) {
      const source = typeof value.source === "string" ? value.source : "";
      const settings = opts.sources?.get(source) ?? opts.defaults ?? DEFAULT_SOURCE_SETTINGS;
      result = normalizeSpatialEnvelope(value, rec.text, {
        now,
        geos,
        ...settings,
        ...(opts.limits ? { limits: opts.limits } : {}),
      });
    } else {
      result = normalizeAfcRecord(value, rec.text, { now });
    }
  } catch (e) {
    // Not expected (bad input comes back as field errors or a poison record); if it happens, this record alone
    // is rejected rather than the request's later records being left unstored.
    return {
      index: rec.index,
      ok: false,
      errors: [{ path: "(root)", message: `could not be processed: ${(e as Error).message}` }],
      ...key,
    };
  }
  if (!result.ok) return { index: rec.index, ok: false, errors: result.errors, ...key };
  // One value PostgreSQL cannot store would fail the whole batch: that record alone is rejected (storable.ts;
  // text and jsonb are searched only when the line holds a suspect escape).
  const bad = unstorableProblem(result.record, suspectText(rec.text));
  if (bad !== null) return { index: rec.index, ok: false, errors: [bad], ...key };
  return { index: rec.index, ok: true, record: withFacts(prepareRecord(result.record), result.record, opts.rules, geos) };
}

/** A prepared record with what the active rules will ask of it at the store step (none when no rule is active). */
export function withFacts<T extends PreparedRecord>(
  prepared: T,
  record: Parameters<typeof arrivalFacts>[0],
  rules: ArrivalRules | undefined,
  geos: Parameters<typeof arrivalFacts>[3],
): T {
  if (rules && rules.rules.length > 0) prepared.facts = arrivalFacts(record, prepared.reasonGroup, rules, geos);
  return prepared;
}

/**
 * A chunk of records, in order; each record's `now` is the chunk's (one clock reading per chunk). With
 * `stopWhenGeosBroken` (a worker thread), the chunk stops after a record whose GEOS call aborted the module:
 * the results cover only the records before the stop, and the caller has the rest normalized elsewhere
 * (normalize-pool.ts), so one record's memory exhaustion costs that record alone.
 */
export async function normalizeChunk(
  recs: RecordText[],
  now: Date,
  opts: NormalizeSettings,
  stopWhenGeosBroken = false,
): Promise<Normalized[]> {
  const out: Normalized[] = [];
  for (const rec of recs) {
    out.push(await normalizeRecord(rec, now, opts));
    if (stopWhenGeosBroken && (await geosBroken())) break;
  }
  return out;
}

/** Rows at least this long cross from a thread in a buffer of their own (PreparedRecord.row); shorter ones share one. */
const ROW_BYTES_FROM = 64 * 1024;

/**
 * Turns the rows of a thread's results into UTF-8 bytes, in place, and returns their buffers for the thread to
 * transfer (moved, not copied) with its answer. The storing thread then copies bytes into the COPY data instead
 * of receiving each row as a string, concatenating them and encoding the result for the socket, a large share of
 * its CPU on an AFC import; the encoding done here costs a fraction of it. Short rows are encoded into
 * one buffer per chunk (one transfer instead of hundreds); a large row gets its own, so it never makes the
 * shared one grow.
 */
export function rowsAsBytes(results: readonly (Normalized | { ok: true; record: PreparedRecord })[]): ArrayBuffer[] {
  const moved: ArrayBuffer[] = [];
  const short: PreparedRecord[] = [];
  let room = 0;
  for (const r of results) {
    if (!r.ok || typeof r.record.row !== "string") continue;
    if (r.record.row.length < ROW_BYTES_FROM) {
      short.push(r.record);
      room += r.record.row.length * 3; // UTF-8 needs at most 3 bytes per UTF-16 unit
      continue;
    }
    const bytes = new TextEncoder().encode(r.record.row);
    r.record.row = bytes;
    moved.push(bytes.buffer);
  }
  if (short.length === 0) return moved;
  const encoder = new TextEncoder();
  const scratch = new Uint8Array(room);
  const ends: number[] = [];
  let at = 0;
  for (const record of short) {
    at += encoder.encodeInto(record.row as string, scratch.subarray(at)).written;
    ends.push(at);
  }
  const packed = scratch.slice(0, at); // exactly the bytes written: the scratch may be 3× larger
  short.forEach((record, i) => (record.row = packed.subarray(i === 0 ? 0 : ends[i - 1], ends[i])));
  moved.push(packed.buffer);
  return moved;
}
