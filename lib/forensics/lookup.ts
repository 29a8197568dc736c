import "server-only";
import { ledgerInScopeSql, paramsOf, scopeSql, type RecordScope } from "../scope/record-scope";
import type pg from "pg";
import { escapeLike, isHashRange, keyMatch, prefixUpperBound, selectBranches, viewportClause } from "../dead-letters/query/where";
import { maskEntityKey, maskIdentifier } from "../masking/identifiers";
import { assertSearchable } from "./access";
import { maskFreeText } from "../masking/mask";
import type { MaskRules } from "../masking/rules";
import { placeBox, placeBranches, placeClause, type Place } from "./place";
import type { LedgerHit, LookupQuery, LookupRecord, LookupResult, MatchField } from "./forensics-schemas";
import { utcMicrosSql } from "../time/instant";

// "What happened to this tap / this feature?": one search over every identifier a record has, a place and a
// time window, plus the ledger, so a key that was settled (and whose record has since left the DLQ, or was
// never in it) still answers "applied when, by which batch".
//
// Each identifier is its own index probe (UNION ALL of branches) rather than one OR: an OR over five columns
// lets the planner walk observed_at with a filter, which at 1M rows is seconds for a rare key; the branches
// are each an index scan of a few rows. device_id can match thousands of taps, so its branch is bounded and
// ordered on (device_id, observed_at).

type Db = pg.Pool | pg.PoolClient;

/** A key that is an event hash: the only keys a prefix finds here (masking never touches a 64-hex token). */
const HASH_KEY = "idempotency_key ~ '^[0-9a-f]{64}$'";

/** A place search reads at most this many index entries before sorting (cf. VIEWPORT_CAP in list.ts). */
export const PLACE_CAP = 5_000;

const COLUMNS = `d.id::text AS id, d.kind, d.source, d.idempotency_key, d.event_id, d.device_id, d.source_message_id,
  d.reason, d.reason_group, d.failure_class, d.status, ${utcMicrosSql("d.observed_at")} AS observed_at, d.first_seen_at, d.replay_count, d.failure_count,
  (center(d.bbox))[0] AS cx, (center(d.bbox))[1] AS cy, false AS archived`;

/** COLUMNS of an archived record (alias a): no payload, no geometry; the final reason and counts. */
const ARCHIVE_COLUMNS = `a.id::text AS id, a.kind, a.source, a.idempotency_key, a.event_id, a.device_id, a.source_message_id,
  a.reason, a.reason_group, a.failure_class, a.status, ${utcMicrosSql("a.observed_at")} AS observed_at, a.first_seen_at, a.replay_count,
  a.failure_count, NULL::float8 AS cx, NULL::float8 AS cy, true AS archived`;

/** A record id as the search term: digits that fit a bigint. */
const isRecordId = (q: string) => /^[1-9][0-9]{0,17}$/.test(q);

interface Row {
  id: string;
  kind: LookupRecord["kind"];
  source: string;
  idempotency_key: string | null;
  event_id: string | null;
  device_id: string | null;
  source_message_id: string | null;
  reason: string;
  reason_group: string;
  failure_class: LookupRecord["failureClass"];
  status: LookupRecord["status"];
  observed_at: string;
  first_seen_at: Date;
  replay_count: number;
  failure_count: number;
  /** centre of the stored box: its east may run past 180 (a box across the antimeridian), so wrapped below */
  cx: number | null;
  cy: number | null;
  matched: MatchField[];
  archived: boolean;
}

function toRecord(r: Row, mask: MaskRules | null): LookupRecord {
  return {
    id: r.id,
    kind: r.kind,
    source: r.source,
    idempotencyKey: r.idempotency_key,
    eventId: maskIdentifier(r.event_id, "event_id", mask),
    deviceId: maskIdentifier(r.device_id, "device_id", mask),
    sourceMessageId: maskIdentifier(r.source_message_id, "source_message_id", mask),
    reason: mask ? maskFreeText(r.reason, mask) : r.reason,
    reasonGroup: mask ? maskFreeText(r.reason_group, mask) : r.reason_group,
    failureClass: r.failure_class,
    status: r.status,
    observedAt: r.observed_at,
    firstSeenAt: r.first_seen_at.toISOString(),
    replayCount: r.replay_count,
    failureCount: r.failure_count,
    matchedOn: r.matched,
    archived: r.archived,
    position: r.cx === null || r.cy === null ? null : [r.cx > 180 ? r.cx - 360 : r.cx, r.cy],
  };
}

function timeClauses(query: LookupQuery, p: (v: unknown) => string, alias = "d"): string[] {
  const out: string[] = [];
  if (query.from) out.push(`${alias}.observed_at >= ${p(query.from)}`);
  if (query.to) out.push(`${alias}.observed_at <= ${p(query.to)}`);
  return out;
}

function placeOf(query: LookupQuery): Place | null {
  if (query.bbox) return { type: "bbox", bbox: query.bbox };
  if (query.near) return { type: "near", lon: query.near[0], lat: query.near[1], radiusKm: query.radiusKm };
  return null;
}

async function byIdentifier(db: Db, scope: RecordScope, query: LookupQuery, q: string, place: Place | null): Promise<Row[]> {
  const values: unknown[] = [];
  const p = (v: unknown) => `$${values.push(v)}`;
  const key = p(q);
  const limit = p(query.limit + 1);
  const deviceTime = [...timeClauses(query, p, "x"), ...(scope.all ? [] : [scopeSql(scope, p, "x")])];
  const branches = [
    `SELECT id, 'idempotency_key' AS m FROM dead_letter WHERE ${keyMatch("", `= ${key}`)}`,
    `SELECT id, 'event_id' FROM dead_letter WHERE event_id = ${key}`,
    `(SELECT x.id, 'device_id' FROM dead_letter x WHERE x.device_id = ${key} ${deviceTime.map((c) => `AND ${c}`).join(" ")}
      ORDER BY x.observed_at DESC LIMIT ${limit})`,
    `SELECT id, 'source_message_id' FROM dead_letter WHERE source_message_id = ${key}`,
    // A feature's id (a tap's entity key is its device id, matched above): dead_letter_feature_observed_idx.
    `SELECT id, 'feature_id' FROM dead_letter WHERE kind = 'spatial' AND entity_key = ${key}`,
    // Pulled from a broker: its message id (AMQP message_id, JetStream sequence, Redis entry id) or its position
    // (queue/message id, stream:sequence, stream:entry id), as the broker's own tools show them: a stored position
    // goes on with which instance of the message it was (`@` and the stream's creation, the death's time, …).
    `SELECT id, 'broker_message_id' FROM dead_letter WHERE origin_message_id = ${key}`,
    `SELECT dead_letter_id, 'broker_position' FROM source_message WHERE position = ${key} OR position LIKE ${p(`${escapeLike(q)}@%`)}`,
    // event_id/device_id values an identity override replaced: the record was captured with them.
    `SELECT dead_letter_id, field FROM identity_alias WHERE value = ${key}`,
    ...(isRecordId(q) ? [`SELECT id, 'record_id' FROM dead_letter WHERE id = ${p(q)}::bigint`] : []),
  ];
  if (isHashRange(q)) {
    // Event hashes are lowercase hex; a range on the plain btree finds a prefix under any collation. Only a key
    // that is a whole hash (64 hex characters, never masked) is found by its prefix: "41111111" must not find a
    // key made of a card number, which its readers see masked.
    const lower = q.toLowerCase();
    branches.push(`(SELECT id, 'event_hash_prefix' FROM dead_letter
      WHERE ${keyMatch("", `>= ${p(lower)}`, `< ${p(prefixUpperBound(lower))}`, `<> ${key}`)} AND ${HASH_KEY} LIMIT ${limit})`);
  }
  const where = [...timeClauses(query, p), ...(place ? [placeClause(place, p)] : []), ...(scope.all ? [] : [scopeSql(scope, p)])];
  const { rows } = await db.query<Row>(
    `WITH hits AS (${branches.join("\n UNION ALL ")})
     SELECT ${COLUMNS}, array_agg(DISTINCT h.m ORDER BY h.m) AS matched
     FROM hits h JOIN dead_letter d ON d.id = h.id
     ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
     GROUP BY d.id ORDER BY d.observed_at DESC, d.id DESC LIMIT ${limit}`,
    values,
  );
  return rows;
}

/**
 * The same identifiers in dead_letter_archive (settled records past the archive horizon, lib/ops/archive.ts): each
 * its own index probe, as above, under the same time window and team scope. The archive keeps no geometry, so a
 * search with a place finds nothing there; values an identity override replaced are kept in `aliases` but not
 * indexed, so they are not searched.
 */
async function archivedByIdentifier(db: Db, scope: RecordScope, query: LookupQuery, q: string): Promise<Row[]> {
  const values: unknown[] = [];
  const p = (v: unknown) => `$${values.push(v)}`;
  const key = p(q);
  const limit = p(query.limit + 1);
  const deviceTime = [...timeClauses(query, p, "x"), ...(scope.all ? [] : [scopeSql(scope, p, "x")])];
  const branches = [
    `SELECT id, 'idempotency_key' AS m FROM dead_letter_archive WHERE ${keyMatch("", `= ${key}`)}`,
    `SELECT id, 'event_id' FROM dead_letter_archive WHERE event_id = ${key}`,
    `(SELECT x.id, 'device_id' FROM dead_letter_archive x WHERE x.device_id = ${key} ${deviceTime.map((c) => `AND ${c}`).join(" ")}
      ORDER BY x.observed_at DESC LIMIT ${limit})`,
    `SELECT id, 'source_message_id' FROM dead_letter_archive WHERE source_message_id = ${key}`,
    `SELECT id, 'feature_id' FROM dead_letter_archive WHERE kind = 'spatial' AND entity_key = ${key}`,
    `SELECT id, 'broker_message_id' FROM dead_letter_archive WHERE origin_message_id = ${key}`,
    ...(isRecordId(q) ? [`SELECT id, 'record_id' FROM dead_letter_archive WHERE id = ${p(q)}::bigint`] : []),
  ];
  if (isHashRange(q)) {
    const lower = q.toLowerCase();
    branches.push(`(SELECT id, 'event_hash_prefix' FROM dead_letter_archive
      WHERE ${keyMatch("", `>= ${p(lower)}`, `< ${p(prefixUpperBound(lower))}`, `<> ${key}`)} AND ${HASH_KEY} LIMIT ${limit})`);
  }
  const where = [...timeClauses(query, p, "a"), ...(scope.all ? [] : [scopeSql(scope, p, "a")])];
  const { rows } = await db.query<Row>(
    `WITH hits AS (${branches.join("\n UNION ALL ")})
     SELECT ${ARCHIVE_COLUMNS}, array_agg(DISTINCT h.m ORDER BY h.m) AS matched
     FROM hits h JOIN dead_letter_archive a ON a.id = h.id
     ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
     GROUP BY a.id ORDER BY a.observed_at DESC, a.id DESC LIMIT ${limit}`,
    values,
  );
  return rows;
}

/** Live and archived hits in one order: newest observed first, then the higher id. */
function newestFirst(a: Row, b: Row): number {
  if (a.observed_at !== b.observed_at) return a.observed_at < b.observed_at ? 1 : -1;
  return BigInt(b.id) > BigInt(a.id) ? 1 : BigInt(b.id) < BigInt(a.id) ? -1 : 0;
}

/**
 * Records in a place, newest first. Like the list's viewport (lib/dead-letters/query/list.ts): a place holding few
 * records is read from the covering GiST index and sorted; a crowded one by walking observed_at backwards,
 * which finds a page quickly exactly because the place is crowded.
 */
async function byPlace(db: Db, scope: RecordScope, query: LookupQuery, place: Place): Promise<Row[]> {
  const values: unknown[] = [];
  const p = (v: unknown) => `$${values.push(v)}`;
  const time = [...timeClauses(query, p), ...(scope.all ? [] : [scopeSql(scope, p)])];
  const union = selectBranches(
    "d.id, d.observed_at",
    placeBranches(place, p).map((b) => [b, ...time].join(" AND ")),
  );
  const limit = p(query.limit + 1);
  const select = (ids: string) =>
    `SELECT ${COLUMNS}, ARRAY['place']::text[] AS matched FROM (${ids}) p JOIN dead_letter d ON d.id = p.id
     ORDER BY d.observed_at DESC, d.id DESC`;
  const sorted = await db.query<Row & { candidates: number }>(
    `WITH c AS MATERIALIZED (${union} LIMIT ${PLACE_CAP + 1})
     SELECT s.*, (SELECT count(*) FROM c)::int AS candidates FROM (${select(`SELECT id FROM c ORDER BY observed_at DESC, id DESC LIMIT ${limit}`)}) s`,
    values,
  );
  if ((sorted.rows[0]?.candidates ?? 0) <= PLACE_CAP) return sorted.rows;
  const walkValues: unknown[] = [];
  const w = (v: unknown) => `$${walkValues.push(v)}`;
  // COALESCE keeps the GiST index out of this plan (see walkObserved in list.ts).
  const walk = [
    `COALESCE(${viewportClause(placeBox(place), w)}, false)`,
    placeClause(place, w, { indexable: false }),
    ...timeClauses(query, w),
    ...(scope.all ? [] : [scopeSql(scope, w)]),
  ].join(" AND ");
  const { rows } = await db.query<Row>(
    select(`SELECT d.id FROM dead_letter d WHERE ${walk} ORDER BY d.observed_at DESC, d.id DESC LIMIT ${w(query.limit + 1)}`),
    walkValues,
  );
  return rows;
}

interface LedgerRow {
  idempotency_key: string;
  kind: LedgerHit["kind"];
  entity_key: string | null;
  observed_at: string | null;
  applied_at: Date;
  batch_id: string | null;
  item_id: string | null;
  dead_letter_id: string | null;
  origin: string;
}

async function ledgerHits(
  db: Db,
  scope: RecordScope,
  q: string | undefined,
  keys: string[],
  limit: number,
  mask: MaskRules | null,
): Promise<LedgerHit[]> {
  const values: unknown[] = [keys];
  const ors = ["idempotency_key = ANY($1::text[])"];
  if (q !== undefined) {
    ors.push(`idempotency_key = $${values.push(q)}`);
    if (isHashRange(q)) {
      const lower = q.toLowerCase();
      ors.push(
        `(idempotency_key >= $${values.push(lower)} AND idempotency_key < $${values.push(prefixUpperBound(lower))} AND ${HASH_KEY})`,
      );
    }
  }
  // One probe of the primary key per branch; the UNION keeps each an index scan.
  const { rows } = await db.query<LedgerRow>(
    `SELECT idempotency_key, kind, entity_key, ${utcMicrosSql("observed_at")} AS observed_at, applied_at, batch_id::text AS batch_id, item_id::text AS item_id,
       dead_letter_id::text AS dead_letter_id, origin
     FROM (${ors.map((o) => `(SELECT * FROM ledger_entry WHERE ${o} LIMIT ${limit + 1})`).join(" UNION ")}) l
     WHERE ${ledgerInScopeSql(scope, paramsOf(values))}
     ORDER BY applied_at DESC LIMIT ${limit + 1}`,
    values,
  );
  return rows.map((r) => ({
    idempotencyKey: r.idempotency_key,
    kind: r.kind,
    // A tap's entity is its device: masked as the record's device id is (an entry of no known kind may be a tap).
    entityKey: maskEntityKey(r.entity_key, r.kind ?? "afc", mask),
    observedAt: r.observed_at,
    appliedAt: r.applied_at.toISOString(),
    batchId: r.batch_id,
    itemId: r.item_id,
    deadLetterId: r.dead_letter_id,
    origin: r.origin,
  }));
}

/**
 * Finds records and settled keys. `mask`: rules to apply to free text shown (null for clear values);
 * `unmaskRights`: whether the reader may see card data in clear (the safe default: not). Without them a term
 * holding a card number is refused (422 naming q): the answer would confirm a number the reader sees masked.
 */
export async function lookup(
  db: Db,
  scope: RecordScope,
  query: LookupQuery,
  mask: MaskRules | null,
  reader: { unmaskRights: boolean } = { unmaskRights: false },
): Promise<LookupResult> {
  assertSearchable(reader.unmaskRights, { q: query.q });
  const place = placeOf(query);
  const rows =
    query.q !== undefined
      ? await byIdentifierLiveAndArchived(db, scope, query, query.q, place)
      : place
        ? await byPlace(db, scope, query, place)
        : [];
  const records = rows.slice(0, query.limit).map((r) => toRecord(r, mask));
  const keys = [...new Set(records.flatMap((r) => (r.idempotencyKey ? [r.idempotencyKey] : [])))];
  const ledger = keys.length > 0 || query.q !== undefined ? await ledgerHits(db, scope, query.q, keys, query.limit, mask) : [];
  return {
    records,
    ledger: ledger.slice(0, query.limit),
    truncated: rows.length > query.limit || ledger.length > query.limit,
  };
}

async function byIdentifierLiveAndArchived(db: Db, scope: RecordScope, query: LookupQuery, q: string, place: Place | null): Promise<Row[]> {
  const [live, archived] = await Promise.all([
    byIdentifier(db, scope, query, q, place),
    place ? Promise.resolve([]) : archivedByIdentifier(db, scope, query, q),
  ]);
  return archived.length === 0 ? live : [...live, ...archived].sort(newestFirst).slice(0, query.limit + 1);
}
