-- Ingest time spent compressing: a spatial record's row is ~1.9 kB (raw envelope, payload, analysis, repaired
-- geometry), just around the 2 kB at which PostgreSQL starts compressing a row's values, and pglz on a third of
-- the rows cost ~10 µs a record. Rows now stay uncompressed up to ~4 kB (large geometries still compress), and
-- where the server has lz4 (PostgreSQL 14+ built with it, e.g. Debian's; the embedded server is not) values that
-- are compressed use it: several times faster than pglz at about the same size. The audit log's batch events
-- (one per stored batch of up to 500 records, ~400 kB of JSON) are always compressed: lz4 there too.
ALTER TABLE "dead_letter" SET (toast_tuple_target = 4000);

DO $$
BEGIN
  ALTER TABLE "dead_letter"
    ALTER COLUMN "raw_envelope" SET COMPRESSION lz4,
    ALTER COLUMN "payload" SET COMPRESSION lz4,
    ALTER COLUMN "analysis" SET COMPRESSION lz4,
    ALTER COLUMN "repaired_geometry" SET COMPRESSION lz4;
  ALTER TABLE "audit_event"
    ALTER COLUMN "before" SET COMPRESSION lz4,
    ALTER COLUMN "after" SET COMPRESSION lz4,
    ALTER COLUMN "diff" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR syntax_error THEN
  -- no lz4 in this build (feature_not_supported), or a server before PostgreSQL 14 (no SET COMPRESSION at all)
  RAISE NOTICE 'this server has no lz4: values keep pglz compression';
END $$;
