-- Guards the schema engine does not model (triggers are invisible to the drift check, on purpose).

-- The audit trail is append-only in the database itself, whoever connects: UPDATE and DELETE are refused.
CREATE FUNCTION audit_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_event is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER audit_event_no_update BEFORE UPDATE OR DELETE ON "audit_event"
  FOR EACH ROW EXECUTE FUNCTION audit_event_append_only();
CREATE TRIGGER audit_event_no_truncate BEFORE TRUNCATE ON "audit_event"
  FOR EACH STATEMENT EXECUTE FUNCTION audit_event_append_only();

-- What was received is evidence: the raw envelope and the first failure reason never change. Retention may
-- only clear the raw envelope (set it to NULL), never rewrite it.
CREATE FUNCTION dead_letter_keep_evidence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.raw_envelope IS DISTINCT FROM OLD.raw_envelope AND NEW.raw_envelope IS NOT NULL THEN
    RAISE EXCEPTION 'dead_letter.raw_envelope is immutable' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NEW.first_failure_reason IS DISTINCT FROM OLD.first_failure_reason THEN
    RAISE EXCEPTION 'dead_letter.first_failure_reason is immutable' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NEW.idempotency_key IS DISTINCT FROM OLD.idempotency_key THEN
    RAISE EXCEPTION 'dead_letter.idempotency_key is fixed at first ingest' USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER dead_letter_keep_evidence BEFORE UPDATE ON "dead_letter"
  FOR EACH ROW EXECUTE FUNCTION dead_letter_keep_evidence();
