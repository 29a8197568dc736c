-- audit_head stays one row whose hash changes only as the chain grows: a rewritten head hash (same last_id)
-- or a second row is refused like moving it back (the re-check found both accepted).
CREATE OR REPLACE FUNCTION audit_head_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.id <> 1 OR EXISTS (SELECT 1 FROM "audit_head") THEN
      RAISE EXCEPTION 'audit_head only moves forward: a second row refused' USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END IF;
  IF TG_OP <> 'UPDATE' OR NEW.id <> OLD.id OR NEW.last_id < OLD.last_id
     OR (NEW.last_id = OLD.last_id AND NEW.last_hash IS DISTINCT FROM OLD.last_hash) THEN
    RAISE EXCEPTION 'audit_head only moves forward: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER audit_head_single BEFORE INSERT ON "audit_head"
  FOR EACH ROW EXECUTE FUNCTION audit_head_forward_only();
