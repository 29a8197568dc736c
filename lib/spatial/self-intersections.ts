import { parseGeometry, type Geometry, type Position } from "./geojson";

// Every point where a polygon's boundary crosses itself. GEOS's validity check stops at the first problem
// ("Self-intersection at or near point …"): a pentagram has five crossings and the analyst saw one marker. This
// lists them all for the map and the explanation. Pure and client-safe, so the page computes it from the payload.
//
// What counts: a ring crossing or touching itself away from its neighbouring edges, and two rings (or two polygons
// of a MultiPolygon) crossing properly. Rings that merely touch at a point are valid (OGC) and are not listed.

export const MAX_MARKED = 100;
/** Beyond this many edges the sweep below could take seconds in a browser: the page says GEOS's first point only. */
export const MAX_EDGES = 20_000;

interface Edge {
  ring: number;
  index: number;
  /** the ring's edge count, to tell its first and last edges are neighbours */
  ringEdges: number;
  ax: number;
  ay: number;
  bx: number;
  by: number;
  minX: number;
  maxX: number;
}

export interface SelfIntersections {
  points: [number, number][];
  /** more points exist than MAX_MARKED, or the geometry has too many edges to look */
  truncated: boolean;
}

function rings(g: Geometry): Position[][] {
  switch (g.type) {
    case "Polygon":
      return g.coordinates;
    case "MultiPolygon":
      return g.coordinates.flat();
    case "GeometryCollection":
      return g.geometries.flatMap(rings);
    default:
      return [];
  }
}

const orient = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number) => (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);

function onSegment(e: Edge, x: number, y: number): boolean {
  return Math.min(e.ax, e.bx) <= x && x <= Math.max(e.ax, e.bx) && Math.min(e.ay, e.by) <= y && y <= Math.max(e.ay, e.by);
}

/** Where edges e and f meet: one proper crossing point, or (touching) the endpoints lying on the other edge. */
function meet(e: Edge, f: Edge, touches: boolean): [number, number][] {
  const o1 = orient(e.ax, e.ay, e.bx, e.by, f.ax, f.ay);
  const o2 = orient(e.ax, e.ay, e.bx, e.by, f.bx, f.by);
  const o3 = orient(f.ax, f.ay, f.bx, f.by, e.ax, e.ay);
  const o4 = orient(f.ax, f.ay, f.bx, f.by, e.bx, e.by);
  if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) {
    const t = o3 / (o3 - o4);
    return [[e.ax + t * (e.bx - e.ax), e.ay + t * (e.by - e.ay)]];
  }
  if (!touches) return [];
  const out: [number, number][] = [];
  if (o1 === 0 && onSegment(e, f.ax, f.ay)) out.push([f.ax, f.ay]);
  if (o2 === 0 && onSegment(e, f.bx, f.by)) out.push([f.bx, f.by]);
  if (o3 === 0 && onSegment(f, e.ax, e.ay)) out.push([e.ax, e.ay]);
  if (o4 === 0 && onSegment(f, e.bx, e.by)) out.push([e.bx, e.by]);
  return out;
}

function neighbours(e: Edge, f: Edge): boolean {
  if (e.ring !== f.ring) return false;
  const d = Math.abs(e.index - f.index);
  return d <= 1 || d === e.ringEdges - 1;
}

export function selfIntersections(g: Geometry): SelfIntersections {
  const edges: Edge[] = [];
  rings(g).forEach((ring, r) => {
    const n = ring.length - 1;
    for (let i = 0; i < n; i++) {
      const [ax, ay] = ring[i]!;
      const [bx, by] = ring[i + 1]!;
      if (ax === undefined || ay === undefined || bx === undefined || by === undefined) continue;
      if (ax === bx && ay === by) continue; // a repeated point is no edge
      edges.push({ ring: r, index: i, ringEdges: n, ax, ay, bx, by, minX: Math.min(ax, bx), maxX: Math.max(ax, bx) });
    }
  });
  if (edges.length > MAX_EDGES) return { points: [], truncated: true };
  // Sweep along x: only edges whose x-ranges overlap are compared.
  edges.sort((a, b) => a.minX - b.minX);
  const seen = new Map<string, [number, number]>();
  let truncated = false;
  outer: for (let i = 0; i < edges.length; i++) {
    const e = edges[i]!;
    for (let j = i + 1; j < edges.length && edges[j]!.minX <= e.maxX; j++) {
      const f = edges[j]!;
      if (neighbours(e, f)) continue;
      if (Math.max(e.ay, e.by) < Math.min(f.ay, f.by) || Math.max(f.ay, f.by) < Math.min(e.ay, e.by)) continue;
      for (const p of meet(e, f, e.ring === f.ring)) {
        const key = `${p[0].toPrecision(12)},${p[1].toPrecision(12)}`;
        if (seen.has(key)) continue;
        if (seen.size === MAX_MARKED) {
          truncated = true;
          break outer;
        }
        seen.set(key, p);
      }
    }
  }
  return { points: [...seen.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]), truncated };
}

/** selfIntersections of any JSON value: none when it is not a readable geometry. */
export function selfIntersectionsOf(value: unknown): SelfIntersections {
  const parsed = parseGeometry(value);
  return parsed.ok ? selfIntersections(parsed.geometry) : { points: [], truncated: false };
}
