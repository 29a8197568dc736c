-- The search's feature id: `q` matched entity_key with no index since index_diet_2 dropped
-- (entity_key, observed_at), so no OR over the identifiers could be answered from indexes and every search
-- walked observed_at, filtering each row from the heap until a page matched — ~50,000 rows for a device id at
-- 1M records (15 ms warm, 85 ms and more cold), the whole table for a key that matches nothing. A tap's entity
-- key is its device id (dead_letter_device_observed_idx), so only spatial records are indexed here.
CREATE INDEX "dead_letter_feature_observed_idx" ON "dead_letter" ("entity_key", "observed_at", "id") WHERE "kind" = 'spatial';

-- The list's combined filter (status + kind + source + a day) walked (status, observed_at) and read each row
-- from the heap to test kind and source: ~750 rows for a page of 101 at 1M records (pending AFC records of one
-- source are ~13% of a day's pending ones), 40–85 ms depending on the cache. With the facet columns that never
-- change after ingest (kind, source) and the class carried in the index, the walk tests them in the index and
-- reads only the page's rows (an index-only scan). status, kind, source and failure_class are all indexed
-- elsewhere already, so this makes no update that was HOT-able stop being so.
DROP INDEX "dead_letter_status_observed_idx";
CREATE INDEX "dead_letter_status_observed_idx" ON "dead_letter" ("status", "observed_at", "id") INCLUDE ("bbox", "kind", "source", "failure_class");
