-- CreateTable
CREATE TABLE "audit_head" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "last_id" BIGINT NOT NULL,
    "last_hash" TEXT NOT NULL,

    CONSTRAINT "audit_head_pkey" PRIMARY KEY ("id")
);

-- One row, where the chain ends now (the genesis hash and id 0 for an empty trail).
INSERT INTO "audit_head" ("id", "last_id", "last_hash")
SELECT 1, coalesce(max(id), 0), coalesce((SELECT hash FROM "audit_event" ORDER BY id DESC LIMIT 1), repeat('0', 64))
FROM "audit_event";

-- The head only moves forward and is never removed: deleting the chain's last events then shows (audit verify).
CREATE FUNCTION audit_head_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'UPDATE' OR NEW.id <> OLD.id OR NEW.last_id < OLD.last_id THEN
    RAISE EXCEPTION 'audit_head only moves forward: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER audit_head_forward BEFORE UPDATE OR DELETE ON "audit_head"
  FOR EACH ROW EXECUTE FUNCTION audit_head_forward_only();
CREATE TRIGGER audit_head_no_truncate BEFORE TRUNCATE ON "audit_head"
  FOR EACH STATEMENT EXECUTE FUNCTION audit_head_forward_only();
