// The one entry point of the spatial pipeline: parse → CRS → own checks → GEOS validity → repair → policy.
// Synchronous once GEOS is loaded; every GEOS pointer it creates is destroyed before it returns.
import type { RepairMethod, RepairPolicy, SpatialAnalysis } from "@/lib/vocabulary/record";
import { findCrossing, splitAtAntimeridian, unwrapGeometry } from "./antimeridian";
import { findOutOfRange, resolveCrs, toWgs84 } from "./crs";
import { GeosError, type Geos } from "./geos";
import { fromGeos, geosArea, geosIsEmpty, geosTypeName, toGeos } from "./geos-io";
import { bboxOf, isEmptyGeometry, parseGeometry, type BBox, type Geometry, type GeometryType } from "./geojson";
import { DEFAULT_GEOMETRY_LIMITS, geometryOverLimits, type GeometryLimits } from "./geometry-limits";
import { applyPolicy, repairToValid } from "./repair";
import { formatPoint, geosValidity, inspectStructure, type GeosValidity } from "./validate";

export interface AnalyzeOptions {
  method: RepairMethod;
  policy: RepairPolicy;
  /** declared CRS of the input; default EPSG:4326 */
  crs?: string;
  /** a geometry past these is dropped before GEOS sees it; default DEFAULT_GEOMETRY_LIMITS */
  limits?: GeometryLimits;
  /**
   * false: the analysis only, `repaired` left null when the input is repaired (a rule's dry run counts verdicts):
   * the repair is not copied out of GEOS, oriented and built as GeoJSON. Default true.
   */
  deliver?: boolean;
}

export interface AnalyzeResult {
  analysis: SpatialAnalysis;
  /** the geometry to use downstream, in EPSG:4326: the input itself when valid, the repair when repaired */
  repaired: Geometry | null;
  /** [west, south, east, north] in EPSG:4326; west > east when the input crosses the antimeridian (RFC 7946 §5.2) */
  bbox: BBox | null;
  /** the parsed input reprojected to EPSG:4326, unrepaired; null when it could not be parsed or reprojected */
  normalized: Geometry | null;
}

type Draft = Omit<SpatialAnalysis, "method" | "policy" | "crs">;

/** An analysis with nothing found yet: also what a record without a readable geometry carries. */
export const EMPTY_DRAFT: Draft = {
  valid_before: null,
  reason: null,
  location: null,
  outcome: "dropped",
  valid_after: null,
  type_changed: false,
  type_before: null,
  type_after: null,
  area_before: null,
  area_after: null,
  dropped_parts: 0,
  drop_reason: null,
  crosses_antimeridian: false,
};

/** Longitude into [-180, 180], keeping the side: an east edge at 180 stays 180, a west edge at -180 stays -180. */
function wrapLon(x: number, side: "west" | "east"): number {
  const wrapped = x - 360 * Math.round(x / 360);
  if (side === "east" && wrapped === -180) return 180;
  if (side === "west" && wrapped === 180) return -180;
  return wrapped;
}

/** RFC 7946 §5.2 bbox of an unwrapped geometry: west > east when it straddles the antimeridian. */
function wrappedBbox(unwrapped: Geometry): BBox | null {
  const box = bboxOf(unwrapped);
  if (!box) return null;
  if (box[2] - box[0] >= 360) return [-180, box[1], 180, box[3]];
  return [wrapLon(box[0], "west"), box[1], wrapLon(box[2], "east"), box[3]];
}

/** GEOS located the problem in unwrapped longitudes (e.g. 181); say where it is on the map instead. */
function wrapLocation(validity: GeosValidity): string | null {
  if (!validity.reason || !validity.location) return validity.reason;
  const [x, y] = validity.location;
  return validity.reason.replace(/ at or near point \(.*\)$/, ` at or near point ${formatPoint(wrapLon(x, "east"), y)}`);
}

const EMPTY_AFTER_REPAIR = "Repair produced an empty geometry (every part collapsed, or holes covered the whole shell)";

function dropped(reason: string, patch: Partial<Draft> = {}): Draft {
  return { ...EMPTY_DRAFT, reason, ...patch, outcome: "dropped", drop_reason: patch.drop_reason ?? reason };
}

/**
 * The stored analysis, field by field in SpatialAnalysis order. Spreading differently-shaped drafts into one
 * object literal goes megamorphic in V8, a cost every spatial record pays at ingest.
 */
function toAnalysis(settings: Settings, d: Draft): SpatialAnalysis {
  return {
    valid_before: d.valid_before,
    reason: d.reason,
    location: d.location,
    outcome: d.outcome,
    valid_after: d.valid_after,
    type_changed: d.type_changed,
    type_before: d.type_before,
    type_after: d.type_after,
    area_before: d.area_before,
    area_after: d.area_after,
    dropped_parts: d.dropped_parts,
    drop_reason: d.drop_reason,
    method: settings.method,
    policy: settings.policy,
    crs: settings.crs,
    crosses_antimeridian: d.crosses_antimeridian,
  };
}

interface Core {
  draft: Draft;
  repaired: Geometry | null;
  bbox: BBox | null;
  normalized: Geometry | null;
}

/** Pointers to destroy when an analysis is done: each registered as it is created. */
function keep(owned: number[], g: number): number {
  owned.push(g);
  return g;
}

/** Repair → antimeridian split → policy, on an invalid GEOS geometry `g`. New pointers go to `owned`. */
function repairParsed(
  geos: Geos,
  g: number,
  valid: boolean,
  ctx: { typeBefore: GeometryType; unwrapped: Geometry | null; method: RepairMethod; policy: RepairPolicy; deliver: boolean },
  owned: number[],
): { patch: Partial<Draft>; repaired: Geometry | null } {
  let fixed = g;
  if (!valid) {
    const result = repairToValid(geos, g, ctx.method);
    if (!result.ok) return { patch: { outcome: "dropped", drop_reason: result.reason }, repaired: null };
    fixed = keep(owned, result.g);
  }
  if (geosIsEmpty(geos, fixed)) {
    // Under the structure method also when holes cover the whole shell: they are subtracted, nothing collapses.
    return { patch: { outcome: "dropped", drop_reason: EMPTY_AFTER_REPAIR }, repaired: null };
  }
  // Until here `fixed` is known valid (GEOS said so, or repairToValid checked); a split or a policy extract is not.
  let checked = fixed;
  if (ctx.unwrapped) {
    fixed = keep(owned, toGeos(geos, splitAtAntimeridian(geos, fixed, fromGeos(geos, fixed))));
    // A sliver a few ulps wide across ±180° leaves nothing on either side of the cut.
    if (geosIsEmpty(geos, fixed)) {
      return {
        patch: { outcome: "dropped", drop_reason: "Repair produced an empty geometry (nothing is left on either side of the ±180° cut)" },
        repaired: null,
      };
    }
  }
  const outcome = applyPolicy(geos, fixed, ctx.typeBefore, ctx.policy);
  const patch: Partial<Draft> = { type_changed: outcome.typeChanged, dropped_parts: outcome.droppedParts };
  if (outcome.g === 0) return { patch: { ...patch, outcome: "dropped", drop_reason: outcome.dropReason }, repaired: null };
  if (outcome.g !== fixed) keep(owned, outcome.g);
  if (outcome.g !== checked) {
    const check = geosValidity(geos, outcome.g);
    if (!check.valid)
      return { patch: { ...patch, outcome: "dropped", drop_reason: `Still invalid after repair: ${check.reason}` }, repaired: null };
    checked = outcome.g;
  }
  return {
    patch: {
      ...patch,
      outcome: "repaired",
      valid_after: true,
      type_after: geosTypeName(geos, checked),
      area_after: geosArea(geos, checked),
    },
    repaired: ctx.deliver ? fromGeos(geos, orientRfc7946(geos, checked)) : null,
  };
}

/**
 * The repair as RFC 7946 §3.1.6 wants GeoJSON written: exterior rings counter-clockwise, holes clockwise. GEOS's
 * MakeValid returns exteriors clockwise, and a repair is GeoJSON we write (the API, exports, the CLI), not the
 * producer's as received. Same rings, same area, same validity: only each ring's direction may flip. In place;
 * a failure (not expected) leaves the GEOS orientation rather than losing the repair.
 */
function orientRfc7946(geos: Geos, g: number): number {
  if (geos.lib.GEOSOrientPolygons_r(geos.ctx, g, 0) !== 0) geos.takeError();
  return g;
}

function analyzeParsed(geos: Geos, input: Geometry, policy: RepairPolicy, method: RepairMethod, deliver: boolean): Core {
  const typeBefore = input.type;
  const normalized = input;
  if (isEmptyGeometry(input)) {
    // GEOS calls an empty geometry valid: no validity reason, only the reason it cannot be replayed.
    const draft = dropped("Geometry is empty", { type_before: typeBefore, valid_before: true, area_before: 0, reason: null });
    return { draft, repaired: null, bbox: null, normalized };
  }
  const { geometry: cleaned, report } = inspectStructure(input);
  const crossing = findCrossing(cleaned);
  const work = crossing ? unwrapGeometry(cleaned) : cleaned;
  const bbox = crossing ? wrappedBbox(work) : bboxOf(input);
  const own = report.issues[0] ?? crossing;
  const base: Partial<Draft> = {
    type_before: typeBefore,
    valid_before: false,
    crosses_antimeridian: crossing !== null,
    dropped_parts: report.removedParts,
  };
  if (isEmptyGeometry(work)) {
    const reason = own?.reason ?? "Geometry is empty";
    const draft = dropped(reason, { ...base, location: own?.location ?? null, drop_reason: `All parts collapsed: ${reason}` });
    return { draft, repaired: null, bbox, normalized };
  }
  const owned: number[] = [];
  try {
    const g = keep(owned, toGeos(geos, work));
    const validity = geosValidity(geos, g);
    const areaBefore = geosArea(geos, g);
    const geosReason = crossing ? wrapLocation(validity) : validity.reason;
    const reasons = [report.issues[0]?.reason, crossing?.reason, geosReason].filter((r): r is string => !!r);
    if (reasons.length === 0) {
      const draft: Draft = {
        ...EMPTY_DRAFT,
        ...base,
        valid_before: true,
        outcome: "valid",
        valid_after: true,
        type_after: typeBefore,
        area_before: areaBefore,
        area_after: areaBefore,
      };
      return { draft, repaired: input, bbox, normalized };
    }
    const described: Draft = {
      ...EMPTY_DRAFT,
      ...base,
      reason: reasons.join("; "),
      location: own?.location ?? validity.location,
      area_before: areaBefore,
    };
    const { patch, repaired } = repairParsed(
      geos,
      g,
      validity.valid,
      {
        typeBefore,
        unwrapped: crossing ? work : null,
        method,
        policy,
        deliver,
      },
      owned,
    );
    const draft: Draft = { ...described, ...patch, dropped_parts: report.removedParts + (patch.dropped_parts ?? 0) };
    return { draft, repaired, bbox, normalized };
  } finally {
    // After a wasm abort every call into GEOS throws again: the pointers go with the instance.
    if (!geos.broken) for (const g of owned) geos.destroy(g);
  }
}

/**
 * Validates and repairs one geometry (any unknown value). Never throws for bad input: unusable geometry comes
 * back as outcome "dropped" with the reason. Areas are planar, in square degrees of EPSG:4326 (GEOS's area of
 * the input as given: a bowtie's two lobes cancel to 0) — for comparing before/after, not for surveying.
 */
export function analyzeGeometry(geos: Geos, geometry: unknown, opts: AnalyzeOptions): AnalyzeResult {
  const crs = resolveCrs(opts.crs);
  const settings = { method: opts.method, policy: opts.policy, crs: crs.ok ? crs.declared : String(opts.crs) };
  if (!crs.ok) return unusable(settings, crs.message);
  if (geometry === null || geometry === undefined) return unusable(settings, "Geometry is null");
  const tooBig = geometryOverLimits(geometry, opts.limits ?? DEFAULT_GEOMETRY_LIMITS);
  if (tooBig) return unusable(settings, tooBig);
  const parsed = parseGeometry(geometry);
  if (!parsed.ok) return unusable(settings, parsed.reason);
  const outOfRange = findOutOfRange(parsed.geometry, crs.crs);
  if (outOfRange) {
    return finish(settings, {
      draft: dropped(outOfRange.reason, { location: outOfRange.location, type_before: parsed.geometry.type }),
      repaired: null,
      bbox: null,
      normalized: null,
    });
  }
  const input = toWgs84(parsed.geometry, crs.crs);
  try {
    return finish(settings, analyzeParsed(geos, input, opts.policy, opts.method, opts.deliver !== false));
  } catch (e) {
    // GEOS itself failed (out of wasm memory: std::bad_alloc aborts the module). This record alone is dropped,
    // with the reason; an aborted module is marked broken so its owner (a worker thread) replaces it.
    if (!(e instanceof GeosError) && !(e instanceof WebAssembly.RuntimeError)) throw e;
    if (e instanceof WebAssembly.RuntimeError) geos.markBroken();
    return finish(settings, {
      draft: dropped(`GEOS could not process the geometry: ${e.message}`, { type_before: input.type }),
      repaired: null,
      bbox: null,
      normalized: input,
    });
  }
}

type Settings = Pick<SpatialAnalysis, "method" | "policy" | "crs">;

function finish(settings: Settings, core: Core): AnalyzeResult {
  return {
    analysis: toAnalysis(settings, core.draft),
    repaired: core.repaired,
    bbox: core.bbox ?? (core.repaired ? bboxOf(core.repaired) : null),
    normalized: core.normalized,
  };
}

function unusable(settings: Settings, reason: string): AnalyzeResult {
  return finish(settings, { draft: dropped(reason), repaired: null, bbox: null, normalized: null });
}
