-- The list's note filter searches what its readers are shown, not the note as typed: a substring of a card number
-- typed into a note (shown masked) found the record, so the number could be rebuilt a digit at a time. search_text
-- is the note with every card-like number left out; the application writes it (lib/masking/mask.ts
-- withoutCardNumbers, the rule masking uses). Notes written before are filled here with every run of 13 or more
-- digits left out, which leaves out more than the rule (a run failing Luhn) and never less. The notes table is
-- small next to dead_letter (a note is typed by a person), so the fill is one short UPDATE.
ALTER TABLE "dead_letter_note" ADD COLUMN "search_text" TEXT;
UPDATE "dead_letter_note" SET "search_text" = regexp_replace("text", '\d(?:[ _.-]?\d){12,}', ' ', 'g');
ALTER TABLE "dead_letter_note" ALTER COLUMN "search_text" SET NOT NULL;

DROP INDEX "dead_letter_note_text_trgm_idx";
CREATE INDEX "dead_letter_note_search_trgm_idx" ON "dead_letter_note" USING GIN ("search_text" gin_trgm_ops);
