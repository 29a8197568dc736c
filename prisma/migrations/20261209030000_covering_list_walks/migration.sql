-- redrive:no-transaction
-- The list's walks by source and by reason group, and the lookup by device, carry the facet columns in their
-- index entries (INCLUDE), so a filter combining one of them with others (pending + afc + source + day, pending +
-- spatial + reason, a device's facet counts) is answered from the index alone: a page reads about
-- page size / (share of the walked index's records the rest of the filter keeps) entries, whatever the size of
-- the table. Without them the planner intersected two indexes' bitmaps over every record of the source's day or
-- the reason group and sorted the matches, work that grows with the table (docs/benchmarks.md, bench:list at
-- 2M records). Each replaces an index on the same keys (same count of indexes for ingest to write), built
-- before the old one goes, so no plan is left without an index meanwhile.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_source_cover_idx" ON "dead_letter" ("source", "observed_at", "id")
  INCLUDE ("status", "kind", "failure_class");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_reason_cover_idx" ON "dead_letter" ("reason_group", "observed_at", "id")
  INCLUDE ("status", "kind", "failure_class", "source");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_device_cover_idx" ON "dead_letter" ("device_id", "observed_at", "id")
  INCLUDE ("kind", "status", "failure_class", "source", "reason_group") WHERE "device_id" IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS "dead_letter_source_observed_idx";
DROP INDEX CONCURRENTLY IF EXISTS "dead_letter_reason_group_observed_idx";
DROP INDEX CONCURRENTLY IF EXISTS "dead_letter_device_observed_idx";
