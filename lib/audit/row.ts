import type { JsonValue } from "@/lib/json/value";

// An audit_event row as the readers select it (the log, the chain check, a record's timeline), id as text.

export interface AuditEventRow {
  id: string;
  at: Date;
  actor_id: string | null;
  actor_email: string | null;
  actor_role: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  before: JsonValue | null;
  after: JsonValue | null;
  diff: JsonValue | null;
  reason: string | null;
  request_id: string | null;
  prev_hash: string;
  hash: string;
  key_id: string | null;
}

/** Every column of AuditEventRow. Order by the bigint column (`<alias>.id`), never by this list's text `id`. */
export const AUDIT_EVENT_COLUMNS = `id::text AS id, at, actor_id, actor_email, actor_role, action, target_type, target_id, before, after,
  diff, reason, request_id, prev_hash, hash, key_id`;
