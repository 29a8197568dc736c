-- The list's search finds a record by a prefix of its key, case-insensitively (the list shows keys cut short:
-- "sp-2030ba99" must find "sp-2030ba99-…"), and by its feature id (a spatial record's entity key). A pattern
-- index on the lowered key answers `lower(idempotency_key) LIKE 'prefix%'` under any database collation; the
-- feature id is served by dead_letter_entity_observed_idx.
CREATE INDEX "dead_letter_key_lower_prefix_idx" ON "dead_letter" (lower("idempotency_key") text_pattern_ops);
