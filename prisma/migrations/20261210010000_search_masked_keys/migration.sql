-- The payload search's stored document leaves out the values under the default masked keys (card*, pan, token,
-- account*). A deployment that masks more keys (REDRIVE_MASK_KEYS) rechecks each match against the document built
-- without its own keys' values, so a search cannot find a record by what its reader is shown masked. `masked` is a
-- case-insensitive regular expression a key must not match (lib/dead-letters/query/where.ts builds it).
CREATE FUNCTION dead_letter_search_doc_masking(payload jsonb, masked text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 AS $$
  WITH RECURSIVE walk(v) AS (
    SELECT CASE WHEN jsonb_typeof(payload) = 'object' THEN payload - '{geometry,id,event_id,device_id}'::text[] END
    UNION ALL
    SELECT c.value FROM walk w CROSS JOIN LATERAL (
      SELECT e.key, e.value FROM jsonb_each(CASE WHEN jsonb_typeof(w.v) = 'object' THEN w.v END) e
      UNION ALL
      SELECT NULL, a.value FROM jsonb_array_elements(CASE WHEN jsonb_typeof(w.v) = 'array' THEN w.v END) a
    ) c
    WHERE c.key IS NULL OR (c.key !~* '^(card.*|pan|token|account.*)$' AND c.key !~* masked)
  )
  SELECT to_tsvector('simple'::regconfig, coalesce(
    string_agg(regexp_replace(v #>> '{}', '\d(?:[ _.-]?\d){12,}', ' ', 'g'), ' ') FILTER (WHERE jsonb_typeof(v) IN ('string', 'number')),
    ''))
  FROM walk
$$;
