-- The payload's search document, stored (computed once per write of the payload) instead of recomputed from the
-- payload wherever it is read. With only the expression index, a common term could not be served fast either
-- way: the GIN index hands over every match (78,666 rows for "fence line disputed" at 1M records, a heap fetch
-- each and a sort: 700 ms), and walking observed_at to fill a page recomputed the document for every row walked
-- (~30 µs each). Stored, the walk's test is a few µs, so the list reads a page of a common term in observed_at
-- order and falls back to the index only for rare ones (list.ts searchPage), and sampled facet counts test a
-- stored value. Adding the column rewrites dead_letter once (about a minute per million records here).
ALTER TABLE "dead_letter" ADD COLUMN "search_doc" tsvector GENERATED ALWAYS AS (dead_letter_search_doc("payload")) STORED;

DROP INDEX "dead_letter_search_idx";
CREATE INDEX "dead_letter_search_idx" ON "dead_letter" USING gin ("search_doc");
