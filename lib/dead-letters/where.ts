import type { BBox } from "../spatial/geojson";
import type { ListFilter } from "./filters";
import { viewportBoxes } from "./viewport";

// Builds the WHERE clause for a list filter as parameterised SQL. Pure, so it is tested without a database
// and reused by the list, facet counts, bulk actions, exports and replay batch creation.

export interface SqlFragment {
  text: string;
  values: unknown[];
}

const HEX_PREFIX = /^[0-9a-f]{8,64}$/i;

/** The smallest string greater than every string starting with `prefix` (for index range scans). */
export function prefixUpperBound(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

export function buildWhere(filter: ListFilter, values: unknown[] = [], alias = "d"): SqlFragment {
  const clauses: string[] = [];
  const p = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  // One value is an equality, not `= ANY(array)`: before PostgreSQL 17 an array condition on an index's leading
  // column stops the index from returning rows in (observed_at, id) order, so the list could not walk
  // (status, observed_at, id) and fell back to filtering the observed_at index with a heap fetch per row.
  const oneOf = (column: string, list: readonly string[] | undefined, type: string) => {
    if (!list?.length) return;
    clauses.push(list.length === 1 ? `${alias}.${column} = ${p(list[0])}::${type}` : `${alias}.${column} = ANY(${p(list)}::${type}[])`);
  };
  oneOf("kind", filter.kind, '"DeadLetterKind"');
  oneOf("status", filter.status, '"DeadLetterStatus"');
  oneOf("failure_class", filter.class, '"FailureClass"');
  oneOf("source", filter.source, "text");
  if (filter.reason) clauses.push(`${alias}.reason_group = ${p(filter.reason)}`);
  if (filter.from) clauses.push(`${alias}.observed_at >= ${p(filter.from)}`);
  if (filter.to) clauses.push(`${alias}.observed_at <= ${p(filter.to)}`);
  if (filter.q) {
    const q = p(filter.q);
    const ors = [
      `${alias}.idempotency_key = ${q}`,
      `${alias}.event_id = ${q}`,
      `${alias}.device_id = ${q}`,
      `${alias}.source_message_id = ${q}`,
    ];
    if (HEX_PREFIX.test(filter.q) && filter.q.length < 64) {
      // Event hashes are lowercase hex; a range on the plain btree finds a prefix under any collation.
      const lower = filter.q.toLowerCase();
      ors.push(`(${alias}.idempotency_key >= ${p(lower)} AND ${alias}.idempotency_key < ${p(prefixUpperBound(lower))})`);
    }
    clauses.push(`(${ors.join(" OR ")})`);
  }
  if (filter.bbox) clauses.push(viewportClause(filter.bbox, p, alias));
  return { text: clauses.length ? clauses.join(" AND ") : "TRUE", values };
}

/**
 * The record's box overlaps the viewport: each of the viewport's sides when it spans ±180° (viewport.ts), so a
 * view over the Pacific finds the records east and west of the antimeridian.
 */
export function viewportClause(bbox: BBox, p: (v: unknown) => string, alias = "d"): string {
  const boxes = viewportBoxes(bbox);
  const overlaps = boxes.map(([x1, y1, x2, y2]) => `${alias}.bbox && box(point(${p(x1)}, ${p(y1)}), point(${p(x2)}, ${p(y2)}))`);
  const clauses = [overlaps.length === 1 ? overlaps[0]! : `(${overlaps.join(" OR ")})`];
  // A geometry across the antimeridian is stored with its box normalised to west < east, i.e. ~360° wide:
  // it would match every viewport at its latitudes. It only belongs in a viewport that reaches ±180°.
  if (boxes.every(([x1, , x2]) => x1 > -180 && x2 < 180)) clauses.push(`width(${alias}.bbox) <= 180`);
  return clauses.join(" AND ");
}
