-- The list's search finds records by the values in their working payload (lib/dead-letters/search-syntax.ts):
-- free words, key:value and path = value. A GIN index over the words of the payload's values answers all three
-- (a condition is the words of its value, then the exact jsonpath test on the few rows found). Full-text search
-- is core PostgreSQL, so the embedded server has it too (pg_trgm, a contrib extension, may not be there).
--
-- What the document leaves out, and why:
--   * the geometry: coordinates are not search terms, and a 200,000-vertex polygon would cost ingest dearly;
--   * the identifiers the record holds in columns (a feature's id, a tap's event_id and device_id): `q` matches
--     them exactly there, in observed_at order from their own indexes; in the document a device id matched all
--     of the device's taps (thousands) through a bitmap, and the device lookup read every one of them;
--   * values under the keys masked as card data (lib/masking/rules.ts DEFAULT_MASK_KEYS: card*, pan, token,
--     account*) and digit runs of 13+ digits (card numbers, with or without separators): the list masks them
--     for its readers, so a search on them would find records through values the reader cannot see. Nobody
--     searches card data here; an auditor finds a tap by its identifiers and reveals it.
-- The document is the payload's string and number values, walked down objects and arrays; a key's name is not a
-- search term, and nothing under a masked key is read (an object under "card" is left out whole).
-- The function is IMMUTABLE: changing it means rebuilding dead_letter_search_idx (REINDEX INDEX). Its cost
-- (~30 µs a payload, ten times a heap fetch) tells the planner to read a common word's page by walking
-- observed_at and a rarer one's matches from the index, not to compute the document for thousands of rows.
CREATE FUNCTION dead_letter_search_doc(payload jsonb) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 AS $$
  WITH RECURSIVE walk(v) AS (
    SELECT CASE WHEN jsonb_typeof(payload) = 'object' THEN payload - '{geometry,id,event_id,device_id}'::text[] END
    UNION ALL
    SELECT c.value FROM walk w CROSS JOIN LATERAL (
      SELECT e.key, e.value FROM jsonb_each(CASE WHEN jsonb_typeof(w.v) = 'object' THEN w.v END) e
      UNION ALL
      SELECT NULL, a.value FROM jsonb_array_elements(CASE WHEN jsonb_typeof(w.v) = 'array' THEN w.v END) a
    ) c
    WHERE c.key IS NULL OR c.key !~* '^(card.*|pan|token|account.*)$'
  )
  SELECT to_tsvector('simple'::regconfig, regexp_replace(
    coalesce(string_agg(v #>> '{}', ' ') FILTER (WHERE jsonb_typeof(v) IN ('string', 'number')), ''),
    '\d(?:[ _.-]?\d){12,}', ' ', 'g'))
  FROM walk
$$;

CREATE INDEX "dead_letter_search_idx" ON "dead_letter" USING gin (dead_letter_search_doc("payload"));

