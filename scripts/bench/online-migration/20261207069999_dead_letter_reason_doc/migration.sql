-- redrive:no-transaction
-- bench:migration's change (not shipped): a derived column with its GIN index on dead_letter, the kind of change
-- the payload search document was, made the online way. The column is added nullable with no default (a catalog
-- change, no rewrite), a trigger fills it on every write from then on, the rows already there are filled in
-- batches that commit one by one (a restart resumes after the last), and the index is built CONCURRENTLY after
-- the backfill, so the backfill does not maintain it row by row.
ALTER TABLE "dead_letter" ADD COLUMN IF NOT EXISTS "reason_doc" tsvector;

CREATE OR REPLACE FUNCTION dead_letter_reason_doc(reason text, class_reason text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT to_tsvector('simple', reason || ' ' || coalesce(class_reason, '')) $$;

CREATE OR REPLACE FUNCTION dead_letter_reason_doc_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."reason_doc" := dead_letter_reason_doc(NEW."reason", NEW."class_reason");
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER dead_letter_reason_doc_fill BEFORE INSERT OR UPDATE OF "reason", "class_reason" ON "dead_letter"
  FOR EACH ROW EXECUTE FUNCTION dead_letter_reason_doc_fill();

-- redrive:backfill dead_letter_reason_doc batch=2000
UPDATE "dead_letter" d SET "reason_doc" = dead_letter_reason_doc(d."reason", d."class_reason")
FROM (SELECT "id" FROM "dead_letter" WHERE "id" > $1 ORDER BY "id" LIMIT $2) b
WHERE d."id" = b."id"
RETURNING d."id" AS key;
-- redrive:end

CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_reason_doc_idx" ON "dead_letter" USING gin ("reason_doc");
