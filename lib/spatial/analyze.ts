// The one entry point of the spatial pipeline: parse → CRS → own checks → GEOS validity → repair → policy.
// Synchronous once GEOS is loaded; every GEOS pointer it creates is destroyed before it returns.
import type { RepairMethod, RepairPolicy, SpatialAnalysis } from "@/lib/dead-letters/types";
import { findCrossing, splitAtAntimeridian, unwrapGeometry } from "./antimeridian";
import { findOutOfRange, resolveCrs, toWgs84 } from "./crs";
import type { Geos } from "./geos";
import { fromGeos, geosArea, geosIsEmpty, geosTypeName, toGeos } from "./geos-io";
import { bboxOf, isEmptyGeometry, parseGeometry, type BBox, type Geometry } from "./geojson";
import { applyPolicy, repairToValid } from "./repair";
import { geosValidity, inspectStructure } from "./validate";

export interface AnalyzeOptions {
  method: RepairMethod;
  policy: RepairPolicy;
  /** declared CRS of the input; default EPSG:4326 */
  crs?: string;
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

const EMPTY_DRAFT: Draft = {
  valid_before: null, reason: null, location: null, outcome: "dropped", valid_after: null, type_changed: false,
  type_before: null, type_after: null, area_before: null, area_after: null, dropped_parts: 0, drop_reason: null,
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

function dropped(reason: string, patch: Partial<Draft> = {}): Draft {
  return { ...EMPTY_DRAFT, reason, ...patch, outcome: "dropped", drop_reason: patch.drop_reason ?? reason };
}

interface Core {
  draft: Draft;
  repaired: Geometry | null;
  bbox: BBox | null;
  normalized: Geometry | null;
}

function analyzeParsed(geos: Geos, input: Geometry, policy: RepairPolicy, method: RepairMethod): Core {
  const typeBefore = input.type;
  const normalized = input;
  const before = { type_before: typeBefore, valid_before: false };
  if (isEmptyGeometry(input)) {
    const draft = dropped("Geometry is empty", { ...before, valid_before: true, area_before: 0 });
    return { draft, repaired: null, bbox: null, normalized };
  }
  const { geometry: cleaned, report } = inspectStructure(input);
  const crossing = findCrossing(cleaned);
  const work = crossing ? unwrapGeometry(cleaned) : cleaned;
  const bbox = crossing ? wrappedBbox(work) : bboxOf(input);
  const own = report.issues[0] ?? crossing;
  const base: Partial<Draft> = { ...before, crosses_antimeridian: crossing !== null, dropped_parts: report.removedParts };
  if (isEmptyGeometry(work)) {
    const reason = own?.reason ?? "Geometry is empty";
    const draft = dropped(reason, { ...base, location: own?.location ?? null, drop_reason: `All parts collapsed: ${reason}` });
    return { draft, repaired: null, bbox, normalized };
  }
  const owned: number[] = [];
  const keep = (g: number): number => {
    owned.push(g);
    return g;
  };
  try {
    const g = keep(toGeos(geos, work));
    const validity = geosValidity(geos, g);
    const areaBefore = geosArea(geos, g);
    const reasons = [report.issues[0]?.reason, crossing?.reason, validity.reason].filter((r): r is string => !!r);
    const location = own?.location ?? validity.location;
    const described: Partial<Draft> = { ...base, reason: reasons.join("; ") || null, location, area_before: areaBefore };
    if (reasons.length === 0) {
      const draft: Draft = {
        ...EMPTY_DRAFT, ...described, valid_before: true, outcome: "valid", valid_after: true,
        type_after: typeBefore, area_after: areaBefore,
      };
      return { draft, repaired: input, bbox, normalized };
    }
    let fixed = g;
    if (!validity.valid) {
      const result = repairToValid(geos, g, method);
      if (!result.ok) return { draft: dropped(described.reason ?? result.reason, { ...described, drop_reason: result.reason }), repaired: null, bbox, normalized };
      fixed = keep(result.g);
    }
    if (geosIsEmpty(geos, fixed)) {
      const draft = dropped(described.reason ?? "", { ...described, drop_reason: "Repair produced an empty geometry (every part collapsed)" });
      return { draft, repaired: null, bbox, normalized };
    }
    if (crossing) fixed = keep(toGeos(geos, splitAtAntimeridian(geos, fixed, fromGeos(geos, fixed))));
    const outcome = applyPolicy(geos, fixed, typeBefore, policy);
    const droppedParts = report.removedParts + outcome.droppedParts;
    const after: Partial<Draft> = { ...described, type_changed: outcome.typeChanged, dropped_parts: droppedParts };
    if (outcome.g === 0) {
      return { draft: dropped(described.reason ?? "", { ...after, drop_reason: outcome.dropReason }), repaired: null, bbox, normalized };
    }
    if (outcome.g !== fixed) keep(outcome.g);
    const check = geosValidity(geos, outcome.g);
    if (!check.valid) {
      const draft = dropped(described.reason ?? "", { ...after, drop_reason: `Still invalid after repair: ${check.reason}` });
      return { draft, repaired: null, bbox, normalized };
    }
    const draft: Draft = {
      ...EMPTY_DRAFT, ...after, outcome: "repaired", valid_after: true,
      type_after: geosTypeName(geos, outcome.g), area_after: geosArea(geos, outcome.g),
    };
    return { draft, repaired: fromGeos(geos, outcome.g), bbox, normalized };
  } finally {
    for (const g of owned) geos.destroy(g);
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
  const finish = (core: Core): AnalyzeResult => ({
    analysis: { ...settings, ...core.draft },
    repaired: core.repaired,
    bbox: core.bbox ?? (core.repaired ? bboxOf(core.repaired) : null),
    normalized: core.normalized,
  });
  const unusable = (reason: string): AnalyzeResult =>
    finish({ draft: dropped(reason), repaired: null, bbox: null, normalized: null });
  if (!crs.ok) return unusable(crs.message);
  if (geometry === null || geometry === undefined) return unusable("Geometry is null");
  const parsed = parseGeometry(geometry);
  if (!parsed.ok) return unusable(parsed.reason);
  const outOfRange = findOutOfRange(parsed.geometry, crs.crs);
  if (outOfRange) {
    return finish({
      draft: dropped(outOfRange.reason, { location: outOfRange.location, type_before: parsed.geometry.type }),
      repaired: null, bbox: null, normalized: null,
    });
  }
  const input = toWgs84(parsed.geometry, crs.crs);
  return finish(analyzeParsed(geos, input, opts.policy, opts.method));
}
