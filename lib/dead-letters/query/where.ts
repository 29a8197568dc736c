import type { BBox } from "../../spatial/geojson";
import { scopeSql, sourceInScope, type RecordScope } from "../../scope/record-scope";
import type { ListFilter } from "../filters";
import { conditionJsonPath, parsePayloadSearch, searchWords } from "../search-syntax";
import { searchBoxes } from "./viewport";
import { configuredMaskRules } from "../../masking/config";
import { extraMaskedKeysPattern } from "../../masking/rules";

// Builds the WHERE clause for a list filter as parameterised SQL. Pure but for the deployment's masked keys (read
// once per process), so it is tested without a database and reused by the list, facet counts, bulk actions,
// exports and replay batch creation.

export interface SqlFragment {
  text: string;
  values: unknown[];
}

const HEX_PREFIX = /^[0-9a-f]{8,64}$/i;

/**
 * Whether `q` is searched as an event-hash range: a hex prefix (8–63 characters), or a whole hash pasted in upper
 * case (hashes are stored lowercase and the exact key match is case-sensitive). A whole lowercase hash is the
 * exact match alone.
 */
export function isHashRange(q: string): boolean {
  return HEX_PREFIX.test(q) && (q.length < 64 || q !== q.toLowerCase());
}

/** The smallest string greater than every string starting with `prefix` (for index range scans). */
export function prefixUpperBound(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

/**
 * A condition on the idempotency key that the unique (kind, idempotency_key) index answers: there is no index on
 * the key alone (ingest writes every index for every record), and `kind = ANY (both kinds)`, always true, lets
 * the planner probe the unique one once per kind. `conds` are the key's conditions, e.g. `= $1`, or `>= $1` and `< $2`.
 */
/** Shorter text is matched whole: a prefix of a few characters would match most of the table. */
export const KEY_PREFIX_MIN = 6;

/** `text` as a literal inside a LIKE pattern (PostgreSQL's default escape character is the backslash). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

/** A run of digits (single separators between groups) ending a prefix, maybe with a separator after it. */
const TRAILING_RUN = /\d+(?:[ _.-]\d+)*[ _.-]?$/;

/** Digits enough for a card number (lib/masking/mask.ts isPanDigits): a shorter run is never masked. */
export const CARD_RUN_MIN = 13;

/**
 * The key starts with `prefix` (any case), and the prefix does not end inside a run of digits long enough to be
 * a card number. Keys are shown with card-like runs masked; a prefix growing one digit at a time into such a run
 * would rebuild the card from the answers (a 12-digit prefix and the 4 digits the mask shows). Luhn is not
 * decided in SQL: any run of 13+ digits is matched whole (the exact key) or not at all, which hides more than the
 * mask does (an epoch-millisecond run) and never less. A 64-character hex key (an event hash) is never masked.
 */
export function keyPrefixCondition(prefix: string, p: (v: unknown) => string, alias = "d"): string {
  const lower = prefix.toLowerCase();
  const like = `lower(${alias}.idempotency_key) LIKE ${p(`${escapeLike(lower)}%`)}`;
  const tail = TRAILING_RUN.exec(lower);
  if (!tail) return like;
  const tailDigits = tail[0].replace(/\D/g, "").length;
  // The run continues into the rest of the key: digits right after (or after one separator, when the prefix
  // ends on a digit), then more groups.
  const next = /[ _.-]$/.test(tail[0]) ? "^\\d+(?:[ _.-]\\d+)*" : "^[ _.-]?\\d+(?:[ _.-]\\d+)*";
  const rest = `substring(${alias}.idempotency_key from ${p(lower.length + 1)}::int)`;
  const more = `length(regexp_replace(coalesce(substring(${rest} from ${p(next)}), ''), '\\D', '', 'g'))`;
  return `(${like} AND (${more} = 0 OR ${more} < ${p(CARD_RUN_MIN - tailDigits)}::int OR ${alias}.idempotency_key ~ '^[0-9a-f]{64}$'))`;
}

export function keyMatch(alias: string, ...conds: string[]): string {
  const a = alias ? `${alias}.` : "";
  return `(${a}kind = ANY ('{spatial,afc}'::"DeadLetterKind"[]) AND ${conds.map((c) => `${a}idempotency_key ${c}`).join(" AND ")})`;
}

/**
 * The filter and the reader's record scope (lib/scope/record-scope.ts) as one condition: the scope is a required
 * argument, so no path reads records through a filter without it.
 */
export function buildWhere(scope: RecordScope, asked: ListFilter, values: unknown[] = [], alias = "d"): SqlFragment {
  let filter = asked;
  const clauses: string[] = [];
  const p = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  if (!scope.all) {
    if (filter.source?.length && scope.origins.length === 0) {
      // Named sources under a scope that claims no broker source: each is in scope or not whatever the record, so
      // the scope is decided here and the planner gets the plain equality. As SQL, a source outside the scope
      // was walked in full on its index and every row filtered out.
      const visible = filter.source.filter((source) => sourceInScope(scope, source));
      if (visible.length === 0) clauses.push("FALSE");
      filter = { ...filter, source: visible };
    } else clauses.push(scopeSql(scope, p, alias));
  }
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
  // dead_letter_origin_source_idx is partial (IS NOT NULL): an equality implies it, so the index serves this.
  if (filter.origin) clauses.push(`${alias}.origin_source = ${p(filter.origin)}`);
  if (filter.reason) clauses.push(`${alias}.reason_group = ${p(filter.reason)}`);
  if (filter.from) clauses.push(`${alias}.observed_at >= ${p(filter.from)}`);
  if (filter.to) clauses.push(`${alias}.observed_at <= ${p(filter.to)}`);
  if (filter.q) clauses.push(`(${searchConditions(filter.q, p, alias, filter.kind).join(" OR ")})`);
  // A semi-join on the notes' trigram index (dead_letter_note_search_trgm_idx), not a scan of every note. The notes'
  // search text leaves card numbers out (notes.ts): readers see them masked, so a substring must not find them.
  if (filter.note)
    clauses.push(
      `${alias}.id IN (SELECT dead_letter_id FROM dead_letter_note WHERE search_text ILIKE ${p(`%${escapeLike(filter.note)}%`)})`,
    );
  if (filter.bbox) clauses.push(viewportClause(filter.bbox, p, alias));
  return { text: clauses.length ? clauses.join(" AND ") : "TRUE", values };
}

/**
 * What `q` matches, one condition per index that answers it: the list runs each as its own ordered branch
 * (list.ts), everything else ORs them.
 */
export function searchConditions(text: string, p: (v: unknown) => string, alias = "d", kinds?: readonly string[]): string[] {
  const { identifiers, payload } = searchParts(text, p, alias, kinds);
  return payload ? [...identifiers, payload.condition] : identifiers;
}

/**
 * `q` as the conditions on the record's identifiers (each exact, each served by its own index) and the one on its
 * payload's words (null when `q` does not parse as a payload search), which the list pages through differently
 * (list.ts searchPage); `covered` names the identifier conditions whose index also holds every facet column.
 */
export function searchParts(
  text: string,
  p: (v: unknown) => string,
  alias = "d",
  kinds?: readonly string[],
): { identifiers: string[]; payload: PayloadMatch | null; covered: string[] } {
  const q = p(text);
  // dead_letter_device_cover_idx holds every facet column: the facet counts read a device's records index-only.
  const device = `${alias}.device_id = ${q}`;
  const ors = [keyMatch(alias, `= ${q}`), `${alias}.event_id = ${q}`, device, `${alias}.source_message_id = ${q}`];
  // A feature's id (a tap's entity key is its device id, matched above): dead_letter_feature_observed_idx. Left out
  // when the filter excludes spatial records: the contradiction is planned as a parallel scan that never runs, and
  // starting its workers is not free.
  if (!kinds?.length || kinds.includes("spatial")) ors.push(`(${alias}.kind = 'spatial' AND ${alias}.entity_key = ${q})`);
  // The list shows keys cut short: their first characters, in any case, find them (dead_letter_key_lower_prefix_idx).
  if (text.length >= KEY_PREFIX_MIN) ors.push(keyPrefixCondition(text, p, alias));
  const column = identifierCondition(text, p, alias, kinds);
  if (column) ors.push(column);
  return { identifiers: ors, payload: payloadMatch(text, p, alias, q), covered: [device] };
}

/**
 * A condition on a top-level key the search document leaves out because the record holds it in a column (a tap's
 * event_id and device_id, a feature's id: migration 20261202030000_payload_search), answered by that column's index
 * and then checked on the payload. Without it `device_id:gate-7` found nothing while `gate-7` found the taps.
 */
function identifierCondition(text: string, p: (v: unknown) => string, alias: string, kinds?: readonly string[]): string | null {
  const parsed = parsePayloadSearch(text);
  if (!parsed.ok || parsed.search.kind !== "condition" || parsed.search.path.length !== 1) return null;
  const search = parsed.search;
  const spatial = !kinds?.length || kinds.includes("spatial");
  const key = search.path[0];
  // Parameters are numbered as they are made: one made and never used leaves the statement with an untyped $n.
  const value = () => p(String(search.value));
  const column =
    key === "event_id"
      ? `${alias}.event_id = ${value()}`
      : key === "device_id"
        ? `${alias}.device_id = ${value()}`
        : key === "id" && spatial
          ? `${alias}.kind = 'spatial' AND ${alias}.entity_key = ${value()}`
          : null;
  if (!column) return null;
  const { path, vars } = conditionJsonPath(search);
  return `(${column} AND jsonb_path_exists(${alias}.payload, ${p(path)}::jsonpath, ${p(JSON.stringify(vars))}::jsonb))`;
}

/**
 * `q` searched inside the working payload (search-syntax.ts): the words of the value in the stored search document
 * (dead_letter.search_doc, its GIN index dead_letter_search_idx), then, for a condition, the exact jsonpath test on
 * the rows they found. plainto_tsquery ANDs the words without positions, so the GIN index answers without
 * rechecking the document. Null for a `q` that does not parse (the schema refuses it before it gets here).
 */
export function payloadMatch(q: string, p: (v: unknown) => string, alias = "d", qParam?: string): PayloadMatch | null {
  const parsed = parsePayloadSearch(q);
  if (!parsed.ok) return null;
  const text = searchWords(parsed.search);
  const wordsParam = qParam && text === q ? qParam : p(text);
  const extra = extraMaskedKeysPattern(configuredMaskRules());
  const words =
    `${alias}.search_doc @@ plainto_tsquery('simple', ${wordsParam})` +
    (extra === null
      ? ""
      : ` AND dead_letter_search_doc_masking(${alias}.payload, ${p(extra)}) @@ plainto_tsquery('simple', ${wordsParam})`);
  if (parsed.search.kind === "words") return { condition: `(${words})`, wordsParam };
  const { path, vars } = conditionJsonPath(parsed.search);
  return {
    condition: `(${words} AND jsonb_path_exists(${alias}.payload, ${p(path)}::jsonpath, ${p(JSON.stringify(vars))}::jsonb))`,
    wordsParam,
  };
}

/** The words a payload search looks for in the search document; null for a `q` that does not parse. */
export function payloadWords(q: string): string | null {
  const parsed = parsePayloadSearch(q);
  return parsed.ok ? searchWords(parsed.search) : null;
}

export interface PayloadMatch {
  /** the SQL condition on the record */
  condition: string;
  /** the parameter holding the searched words */
  wordsParam: string;
}

/** A word at least this frequent in the search documents (per ANALYZE's statistics) makes a term "common". */
export const COMMON_WORD_SHARE = 0.005;

/**
 * True when every word of the search is one of `lexemesParam` (a text[] parameter: the common lexemes,
 * common-lexemes.ts): then a page of matches is near in observed_at order, and the GIN index, which hands over all
 * of them in no order (every match of a common word, before a page can be chosen), is the slow way. The words are split as the search document's are (to_tsvector 'simple'). False for no words. The
 * words of a term together can be rarer than each alone: the list then falls back to the index (list.ts).
 */
export function commonWordsSql(wordsParam: string, lexemesParam: string): string {
  const words = `tsvector_to_array(to_tsvector('simple', ${wordsParam}))`;
  return `(cardinality(${words}) > 0 AND ${words} <@ ${lexemesParam}::text[])`;
}

/**
 * The record's box overlaps the viewport: each of the viewport's sides when it spans ±180° (viewport.ts), and
 * the +360 copy that meets boxes stored unwrapped across the antimeridian (stored-box.ts).
 */
export function viewportClause(bbox: BBox, p: (v: unknown) => string, alias = "d"): string {
  const overlaps = boxParams(bbox, p).map((b) => `${alias}.bbox && ${b}`);
  return overlaps.length === 1 ? overlaps[0]! : `(${overlaps.join(" OR ")})`;
}

function boxParams(bbox: BBox, p: (v: unknown) => string): string[] {
  return searchBoxes(bbox).map(([x1, y1, x2, y2]) => `box(point(${p(x1)}, ${p(y1)}), point(${p(x2)}, ${p(y2)}))`);
}

/**
 * The filter as conditions for a UNION ALL, one per search box, each with a single box overlap the covering
 * GiST index (dead_letter_view_idx) can serve index-only. An OR of two overlaps is planned as a BitmapOr, and a
 * bitmap heap scan reads the table for every candidate, where the union reads only index pages. Each
 * branch leaves out what an earlier one matched, so the union lists a record once.
 */
export function buildWhereBranches(
  scope: RecordScope,
  filter: ListFilter,
  values: unknown[] = [],
  alias = "d",
): { branches: string[]; values: unknown[] } {
  const { bbox, ...rest } = filter;
  const base = buildWhere(scope, rest, values, alias).text;
  if (!bbox) return { branches: [base], values };
  const branches = viewportBranches(bbox, (v) => `$${values.push(v)}`, alias);
  return { branches: base === "TRUE" ? branches : branches.map((b) => `${base} AND ${b}`), values };
}

/** The viewport test alone as disjoint UNION ALL branches (see buildWhereBranches). */
export function viewportBranches(bbox: BBox, p: (v: unknown) => string, alias = "d"): string[] {
  const boxes = boxParams(bbox, p);
  return boxes.map((b, i) => [`${alias}.bbox && ${b}`, ...boxes.slice(0, i).map((e) => `NOT (${alias}.bbox && ${e})`)].join(" AND "));
}

/** `SELECT <columns> FROM dead_letter <alias> WHERE <branch>` for each branch, as one UNION ALL. */
export function selectBranches(columns: string, branches: string[], alias = "d"): string {
  return branches.map((b) => `SELECT ${columns} FROM dead_letter ${alias} WHERE ${b}`).join("\n UNION ALL ");
}

/** Records chosen by id, within the reader's scope: an id outside it is as absent as one that does not exist. */
export function idsWhere(scope: RecordScope, ids: readonly string[], values: unknown[], alias = "d"): string {
  const p = (v: unknown) => `$${values.push(v)}`;
  const byId = `${alias}.id = ANY(${p(ids)}::bigint[])`;
  return scope.all ? byId : `${byId} AND ${scopeSql(scope, p, alias)}`;
}
