-- DropIndex
DROP INDEX "dead_letter_bbox_idx";

-- CreateTable
CREATE TABLE "dead_letter_stat" (
    "id" BIGSERIAL NOT NULL,
    "kind" "DeadLetterKind" NOT NULL,
    "status" "DeadLetterStatus" NOT NULL,
    "failure_class" "FailureClass" NOT NULL,
    "source" TEXT NOT NULL,
    "reason_group" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "dead_letter_stat_pkey" PRIMARY KEY ("id")
);

-- Everything below is SQL the schema engine does not model (triggers, INCLUDE columns); the drift check does
-- not see it, on purpose.

-- Facet deltas. Statement-level triggers with transition tables: one INSERT … GROUP BY per statement whatever
-- its size (an ingest batch of 1,000 rows adds a few hundred delta rows, not 1,000 counter updates), and
-- no counter row is ever updated, so concurrent writers cannot block or deadlock each other on it.
CREATE FUNCTION dead_letter_stat_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO dead_letter_stat (kind, status, failure_class, source, reason_group, day, n)
  SELECT kind, status, failure_class, source, reason_group, (observed_at AT TIME ZONE 'UTC')::date, count(*)
  FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END;
$$;

CREATE FUNCTION dead_letter_stat_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Only rows whose grouping columns changed produce a delta (a payload edit or a version bump adds nothing).
  INSERT INTO dead_letter_stat (kind, status, failure_class, source, reason_group, day, n)
  SELECT kind, status, failure_class, source, reason_group, day, sum(n)
  FROM (
    SELECT kind, status, failure_class, source, reason_group, (observed_at AT TIME ZONE 'UTC')::date AS day, -1 AS n FROM old_rows
    UNION ALL
    SELECT kind, status, failure_class, source, reason_group, (observed_at AT TIME ZONE 'UTC')::date, 1 FROM new_rows
  ) delta
  GROUP BY 1, 2, 3, 4, 5, 6
  HAVING sum(n) <> 0;
  RETURN NULL;
END;
$$;

CREATE FUNCTION dead_letter_stat_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO dead_letter_stat (kind, status, failure_class, source, reason_group, day, n)
  SELECT kind, status, failure_class, source, reason_group, (observed_at AT TIME ZONE 'UTC')::date, -count(*)
  FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END;
$$;

-- DELETE, not TRUNCATE: a TRUNCATE naming both tables would otherwise fail ("being used by active queries").
CREATE FUNCTION dead_letter_stat_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM dead_letter_stat;
  RETURN NULL;
END;
$$;

CREATE TRIGGER dead_letter_stat_insert AFTER INSERT ON "dead_letter"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_stat_insert();
CREATE TRIGGER dead_letter_stat_update AFTER UPDATE ON "dead_letter"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_stat_update();
CREATE TRIGGER dead_letter_stat_delete AFTER DELETE ON "dead_letter"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_stat_delete();
CREATE TRIGGER dead_letter_stat_truncate AFTER TRUNCATE ON "dead_letter"
  FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_stat_truncate();

-- Rows that exist before this migration.
INSERT INTO dead_letter_stat (kind, status, failure_class, source, reason_group, day, n)
SELECT kind, status, failure_class, source, reason_group, (observed_at AT TIME ZONE 'UTC')::date, count(*)
FROM dead_letter GROUP BY 1, 2, 3, 4, 5, 6;

-- The viewport filter (scripts/bench-list.ts, 1M rows). A viewport either holds few records — then sorting its
-- index entries is cheapest — or many, and then walking observed_at finds a page quickly. Both are index-only:
--  * dead_letter_view_idx, a covering GiST: observation time, id and every facet column of the records in a
--    viewport without heap access (~2 µs per entry). The plain GiST index needed a heap fetch per row (~200 ms
--    for 27k rows), and its fixed 0.5% selectivity guess made the planner walk observed_at through a small
--    viewport with a heap fetch per row: 3.2 s for a street in Paris.
--  * the observed_at walks carry the box, so the viewport test needs no heap either (~0.5 µs per entry).
-- Prisma cannot express INCLUDE: these are SQL_ONLY_INDEXES in lib/db/migrate.ts, kept out of the drift check.
CREATE INDEX "dead_letter_view_idx" ON "dead_letter" USING GIST ("bbox" box_ops)
  INCLUDE ("observed_at", "id", "status", "failure_class", "source", "reason_group");
DROP INDEX "dead_letter_observed_idx";
CREATE INDEX "dead_letter_observed_idx" ON "dead_letter" ("observed_at", "id") INCLUDE ("bbox");
DROP INDEX "dead_letter_status_observed_idx";
CREATE INDEX "dead_letter_status_observed_idx" ON "dead_letter" ("status", "observed_at", "id") INCLUDE ("bbox");

-- The facet columns are strongly correlated (a source belongs to one kind, a reason group to one kind, poison
-- records are mostly quarantined). Without these statistics the planner multiplies independent selectivities
-- and, for combined filters, walks the wrong index (measured: 4× the rows for pending+afc+source+day).
CREATE STATISTICS "dead_letter_facet_stx" (dependencies, mcv) ON kind, status, failure_class, source, reason_group FROM "dead_letter";
ANALYZE "dead_letter";
