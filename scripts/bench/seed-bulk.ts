// Fast synthetic dead letters for benchmarks: one `INSERT … SELECT generate_series` per chunk, mimicking the
// demo seed's distribution (lib/seed: 55% spatial, scenario weights, sources, 28 days of observations, boxes
// around the same cities) without running the ingest pipeline. lib/seed goes through validation, GEOS and the
// audit chain record by record, far too slow for a million rows; this writes the same row shapes in bulk.
// Reason groups are computed with the real reasonGroup() so filters on them behave as in production.
import type pg from "pg";
import { reasonGroup } from "../../lib/afc/reason-group";
import { AFC_SOURCES, PLACES, SPATIAL_SOURCES, STATIONS } from "../../lib/seed/places";

interface Scenario {
  kind: "spatial" | "afc";
  weight: number;
  /** `{x}`/`{y}` are replaced by the row's coordinates in SQL, so reasons differ per row as real ones do */
  reason: string;
  poison: boolean;
  noKey?: boolean;
  antimeridian?: boolean;
  classReason?: string;
}

const SCENARIOS: Scenario[] = [
  {
    kind: "spatial",
    weight: 12,
    reason: "TopologyException: Input geom 0 is invalid: Self-intersection at or near point {x} {y}",
    poison: false,
  },
  {
    kind: "spatial",
    weight: 6,
    reason: "shapely.errors.GEOSException: IllegalArgumentException: Invalid polygon: Self-intersection",
    poison: false,
  },
  { kind: "spatial", weight: 8, reason: "Ring Self-intersection at or near point {x} {y}", poison: false },
  { kind: "spatial", weight: 6, reason: "IllegalArgumentException: Points of LinearRing do not form a closed linestring", poison: false },
  { kind: "spatial", weight: 5, reason: "ValidationError: ring has 3 repeated consecutive vertices (strict mode)", poison: false },
  { kind: "spatial", weight: 6, reason: "Hole lies outside shell at or near point {x} {y}", poison: false },
  { kind: "spatial", weight: 5, reason: "Nested shells at or near point {x} {y}", poison: false },
  {
    kind: "spatial",
    weight: 4,
    reason: "TopologyException: Input geom 0 is invalid: Self-intersection at or near point {x} {y}",
    poison: false,
  },
  {
    kind: "spatial",
    weight: 4,
    reason: "ValueError: polygon spans more than 180 degrees of longitude (antimeridian crossing?)",
    poison: false,
    antimeridian: true,
  },
  {
    kind: "spatial",
    weight: 8,
    reason: "ValueError: latitude {y} out of range [-90, 90] (coordinates look like EPSG:3857 metres)",
    poison: false,
  },
  {
    kind: "spatial",
    weight: 4,
    reason: "AttributeError: 'NoneType' object has no attribute 'is_valid' (feature has null geometry)",
    poison: true,
    classReason: "Geometry is null",
  },
  {
    kind: "spatial",
    weight: 4,
    reason: "GeoJSONDecodeError: unknown geometry type 'Polygn'",
    poison: true,
    classReason: 'Unknown geometry type "Polygn"',
  },
  { kind: "spatial", weight: 12, reason: "HTTP 503 Service Unavailable from tiles-ingest (attempt 2)", poison: false },
  {
    kind: "spatial",
    weight: 6,
    reason: "ReadTimeout: no acknowledgement from geo-store within 30 s (the write may have been applied)",
    poison: false,
  },
  {
    kind: "spatial",
    weight: 3,
    reason: "KeyError: 'idempotency_key' (producer lost the key before dead-lettering)",
    poison: true,
    noKey: true,
    classReason: "missing idempotency key",
  },
  { kind: "afc", weight: 20, reason: "battery_pct: Unrecognized key", poison: false },
  { kind: "afc", weight: 15, reason: "fare_amount_cents: Expected integer, received string", poison: false },
  { kind: "afc", weight: 8, reason: "fare_amount_cents: Number must be greater than or equal to 0", poison: false },
  { kind: "afc", weight: 6, reason: "unknown: no failure_reason given and raw_payload passes the tap schema", poison: false },
  { kind: "afc", weight: 10, reason: "tap_timestamp: Invalid datetime", poison: false },
  { kind: "afc", weight: 5, reason: "event_id: Required", poison: true, classReason: "missing event_id" },
  { kind: "afc", weight: 4, reason: "device_id: Required", poison: true, classReason: "missing device_id" },
  { kind: "afc", weight: 4, reason: "card_pan: Unrecognized key; account_ref: Unrecognized key", poison: false },
  {
    kind: "afc",
    weight: 4,
    reason: "fare_amount_cents: Expected integer, received string; firmware: Unrecognized key",
    poison: true,
    classReason: "exhausted retries: 4 errors",
  },
];

/** Scenario index per weight unit, like lib/seed's TABLE, split by kind (55% spatial as in the demo). */
function table(kind: Scenario["kind"]): number[] {
  return SCENARIOS.flatMap((s, i) => (s.kind === kind ? Array<number>(s.weight).fill(i) : []));
}

export async function seedBulk(client: pg.PoolClient | pg.Client, count: number, log: (m: string) => void): Promise<void> {
  await client.query("SET synchronous_commit = off");
  await client.query("SELECT setseed(0.42)");
  await client.query(`CREATE TEMP TABLE bench_scenario (idx int PRIMARY KEY, kind "DeadLetterKind", reason text, rgroup text,
    poison boolean, no_key boolean, antimeridian boolean, class_reason text) ON COMMIT PRESERVE ROWS`);
  await client.query(
    `INSERT INTO bench_scenario SELECT * FROM unnest($1::int[], $2::"DeadLetterKind"[], $3::text[], $4::text[], $5::bool[], $6::bool[], $7::bool[], $8::text[])`,
    [
      SCENARIOS.map((_, i) => i),
      SCENARIOS.map((s) => s.kind),
      SCENARIOS.map((s) => s.reason),
      SCENARIOS.map((s) => reasonGroup(s.reason.replaceAll("{x}", "1.5").replaceAll("{y}", "2.5"))),
      SCENARIOS.map((s) => s.poison),
      SCENARIOS.map((s) => s.noKey === true),
      SCENARIOS.map((s) => s.antimeridian === true),
      SCENARIOS.map((s) => s.classReason ?? null),
    ],
  );
  const chunk = 50_000;
  const started = performance.now();
  for (let from = 1; from <= count; from += chunk) {
    const to = Math.min(count, from + chunk - 1);
    await client.query(INSERT_SQL, [
      from,
      to,
      table("spatial"),
      table("afc"),
      PLACES.map((p) => p.lon),
      PLACES.map((p) => p.lat),
      [...SPATIAL_SOURCES],
      [...AFC_SOURCES],
      [...STATIONS],
      Date.UTC(2026, 10, 1) / 1000,
    ]);
    const secs = (performance.now() - started) / 1000;
    log(`seeded ${to.toLocaleString("en")} / ${count.toLocaleString("en")} (${Math.round(to / secs).toLocaleString("en")} rows/s)`);
  }
  await client.query("DROP TABLE bench_scenario");
  log("ANALYZE dead_letter");
  await client.query("ANALYZE dead_letter");
}

// One row per i: r[] are independent uniforms; the scenario decides kind, reason, class; status follows the
// class (poison mostly quarantined, as ingest does; the rest spread over a live queue's statuses).
const INSERT_SQL = `
WITH g AS (
  SELECT i, random() AS r0, random() AS r1, random() AS r2, random() AS r3, random() AS r4, random() AS r5, random() AS r6
  FROM generate_series($1::int, $2::int) AS i
), picked AS (
  SELECT g.*, CASE WHEN g.r0 < 0.55 THEN ($3::int[])[1 + floor(g.r1 * array_length($3::int[], 1))::int]
                   ELSE ($4::int[])[1 + floor(g.r1 * array_length($4::int[], 1))::int] END AS sc,
    1 + floor(g.r2 * array_length($5::float8[], 1))::int AS place
  FROM g
), rows AS (
  SELECT p.*, s.kind, s.reason, s.rgroup, s.poison, s.no_key, s.antimeridian, s.class_reason,
    round((($5::float8[])[p.place] + (p.r3 - 0.5) * 0.2)::numeric, 6)::float8 AS x,
    round((($6::float8[])[p.place] + (p.r4 - 0.5) * 0.2)::numeric, 6)::float8 AS y,
    0.0005 + p.r5 * 0.004 AS d,
    to_timestamp($10::float8 + floor(p.r6 * 28 * 86400)) AS observed,
    md5(p.i::text) AS h
  FROM picked p JOIN bench_scenario s ON s.idx = p.sc
)
INSERT INTO dead_letter (kind, source, idempotency_key, entity_key, event_id, device_id, source_message_id, observed_at,
  first_seen_at, raw_envelope, payload, first_failure_reason, reason, reason_group, failure_class, class_reason, status,
  replay_count, failure_count, analysis, bbox)
SELECT r.kind,
  CASE WHEN r.kind = 'spatial' THEN ($7::text[])[1 + (r.i % array_length($7::text[], 1))]
       ELSE ($8::text[])[1 + (r.i % array_length($8::text[], 1))] END,
  CASE WHEN r.no_key THEN NULL WHEN r.kind = 'spatial' THEN 'sp-' || left(r.h, 8) || '-' || to_hex(r.i)
       ELSE r.h || md5(r.h) END,
  CASE WHEN r.kind = 'spatial' THEN 'parcel-' || (r.i % 400) ELSE ($9::text[])[1 + (r.i % 10)] || '-gate-' || lpad(((r.i / 10) % 24 + 1)::text, 2, '0') END,
  CASE WHEN r.kind = 'afc' AND r.reason <> 'event_id: Required' THEN 'tap-' || substr(r.h, 9, 8) || '-' || to_hex(r.i) END,
  CASE WHEN r.kind = 'afc' AND r.reason <> 'device_id: Required' THEN ($9::text[])[1 + (r.i % 10)] || '-gate-' || lpad(((r.i / 10) % 24 + 1)::text, 2, '0') END,
  CASE WHEN r.kind = 'spatial' THEN 'msg-' || substr(r.h, 17, 12) END,
  r.observed, r.observed + interval '90 seconds',
  CASE WHEN r.kind = 'spatial' THEN '{"kind":"spatial","bench":' || r.i || '}' ELSE '{"kind":"afc","bench":' || r.i || '}' END,
  CASE WHEN r.kind = 'spatial'
    THEN jsonb_build_object('type', 'Feature', 'id', 'parcel-' || (r.i % 400), 'properties', jsonb_build_object(
        'sensor', 'SN-' || (r.i % 50000), 'land_use', (ARRAY['residential','commercial','park','industrial','railway'])[1 + r.i % 5],
        'surveyor', (ARRAY['A. Moreau','J. Okafor','L. Schmidt','M. Rossi','K. Tanaka','P. Novak'])[1 + (r.i / 5) % 6],
        'area_m2', round((r.d * r.d * 1.2e10)::numeric),
        'note', (ARRAY['boundary redrawn after site survey','hydrant relocated north of the gate','fence line disputed by neighbour',
          'drainage easement added','parcel merged with the lot to the east','cadastre import batch','kerb moved during roadworks'])[1 + (r.i / 7) % 7]
          || ' ref ' || to_hex(r.i % 99991)),
      'geometry', jsonb_build_object('type', 'Polygon', 'coordinates', jsonb_build_array(jsonb_build_array(
        jsonb_build_array(r.x, r.y), jsonb_build_array(r.x + r.d, r.y + r.d), jsonb_build_array(r.x + r.d, r.y),
        jsonb_build_array(r.x, r.y + r.d), jsonb_build_array(r.x, r.y)))))
    ELSE jsonb_strip_nulls(jsonb_build_object('event_id', 'tap-' || substr(r.h, 9, 8), 'device_id',
      CASE WHEN r.reason <> 'device_id: Required' THEN ($9::text[])[1 + (r.i % 10)] || '-gate-' || lpad(((r.i / 10) % 24 + 1)::text, 2, '0') END,
      'station', ($9::text[])[1 + (r.i % 10)], 'line', 'L' || (1 + r.i % 12), 'fare_amount_cents', 175 + (r.i % 7) * 25,
      -- Luhn-valid test card numbers where the producer leaked them (masked for non-auditors)
      'card_pan', CASE WHEN r.reason LIKE 'card_pan:%' THEN (ARRAY['4111111111111111','5555555555554444','4012888888881881'])[1 + r.i % 3] END,
      'account_ref', CASE WHEN r.reason LIKE 'card_pan:%' THEN 'ACC-' || (r.i % 100000) END,
      'operator_note', CASE WHEN r.i % 5 = 0 THEN (ARRAY['validator rebooted after firmware update','card read twice at the barrier',
        'tap outside fare zone','offline buffer flushed late'])[1 + (r.i / 5) % 4] END,
      'tap_timestamp', to_char(r.observed AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))) END,
  replace(replace(r.reason, '{x}', r.x::text), '{y}', r.y::text),
  replace(replace(r.reason, '{x}', r.x::text), '{y}', r.y::text),
  r.rgroup,
  CASE WHEN r.poison THEN 'poison' WHEN r.kind = 'spatial' THEN 'transient' ELSE 'transient_schema' END::"FailureClass",
  r.class_reason,
  CASE WHEN r.poison THEN (CASE WHEN r.r2 < 0.9 THEN 'quarantined' ELSE 'pending' END)
       WHEN r.r3 < 0.70 THEN 'pending' WHEN r.r3 < 0.78 THEN 'approved' WHEN r.r3 < 0.93 THEN 'replayed'
       WHEN r.r3 < 0.98 THEN 'quarantined' ELSE 'purged' END::"DeadLetterStatus",
  CASE WHEN r.r4 < 0.15 THEN 1 + (r.i % 2) ELSE 0 END,
  1,
  CASE WHEN r.kind = 'spatial' THEN jsonb_build_object('outcome', CASE WHEN r.poison THEN 'dropped' ELSE 'repaired' END,
    'valid_before', false, 'method', 'linework', 'policy', 'accept', 'crosses_antimeridian', r.antimeridian) END,
  CASE WHEN r.kind <> 'spatial' OR r.poison THEN NULL
       WHEN r.antimeridian THEN box(point(179.9, r.y), point(180.15, r.y + r.d)) -- 179.9 → -179.85, stored unwrapped
       ELSE box(point(r.x, r.y), point(r.x + r.d, r.y + r.d)) END
FROM rows r`;
