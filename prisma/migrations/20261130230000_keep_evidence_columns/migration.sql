-- The evidence guard fires only when an UPDATE names one of the columns it guards. As a row trigger on every
-- update it compared raw_envelope (detoasted, on both sides) for each status change the replay engine and
-- triage write — about 5 µs a row of a replay's ~40 µs record update — to refuse changes those statements
-- never make. A statement that does name a guarded column is checked exactly as before.
DROP TRIGGER dead_letter_keep_evidence ON dead_letter;
CREATE TRIGGER dead_letter_keep_evidence
  BEFORE UPDATE OF raw_envelope, first_failure_reason, idempotency_key ON dead_letter
  FOR EACH ROW EXECUTE FUNCTION dead_letter_keep_evidence();
