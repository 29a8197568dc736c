-- CreateTable
CREATE TABLE "dead_letter_note" (
    "id" BIGSERIAL NOT NULL,
    "dead_letter_id" BIGINT NOT NULL,
    "author_id" TEXT NOT NULL,
    "author_email" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "mentions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dead_letter_note_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "saved_view" (
    "id" BIGSERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "shared" BOOLEAN NOT NULL DEFAULT false,
    "filter" TEXT NOT NULL,
    "sort" TEXT NOT NULL DEFAULT 'desc',
    "columns" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "saved_view_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_default_view" (
    "user_id" TEXT NOT NULL,
    "view_id" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_default_view_pkey" PRIMARY KEY ("user_id")
);

-- CreateIndex
CREATE INDEX "dead_letter_note_record_idx" ON "dead_letter_note"("dead_letter_id", "created_at");

-- CreateIndex
CREATE INDEX "dead_letter_note_mentions_idx" ON "dead_letter_note" USING GIN ("mentions");

-- CreateIndex
CREATE INDEX "saved_view_shared_idx" ON "saved_view"("shared");

-- CreateIndex
CREATE UNIQUE INDEX "saved_view_owner_name_key" ON "saved_view"("owner_id", "name");

-- CreateIndex
CREATE INDEX "user_default_view_view_idx" ON "user_default_view"("view_id");

-- AddForeignKey
ALTER TABLE "dead_letter_note" ADD CONSTRAINT "dead_letter_note_dead_letter_id_fkey" FOREIGN KEY ("dead_letter_id") REFERENCES "dead_letter"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_default_view" ADD CONSTRAINT "user_default_view_view_id_fkey" FOREIGN KEY ("view_id") REFERENCES "saved_view"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (schema.prisma cannot say these). A note is short plain text; the list's `note` filter is a
-- case-insensitive substring (ILIKE '%…%'), which only a trigram index serves without reading every note.
-- pg_trgm ships with PostgreSQL and is a trusted extension (no superuser needed from 13 on).
ALTER TABLE "dead_letter_note" ADD CONSTRAINT "dead_letter_note_text_length" CHECK (char_length("text") BETWEEN 1 AND 2000);
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "dead_letter_note_text_trgm_idx" ON "dead_letter_note" USING GIN ("text" gin_trgm_ops);
