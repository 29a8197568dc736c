import type { AuditContent } from "./chain";

// Who an audit event says acted, and the one mapping from that to the event's actor columns.

export interface Actor {
  id: string | null;
  email: string | null;
  role: string | null;
}

export const SYSTEM_ACTOR: Actor = { id: null, email: "system", role: "system" };

export type ActorColumns = Pick<AuditContent, "actorId" | "actorEmail" | "actorRole"> & { requestId?: string | null };

/**
 * An event's actor columns, with the request id when the caller passes one (null included). Without it the
 * event has no requestId member, which appendAudit stores as null.
 */
export function auditActor(actor: Actor, requestId?: string | null): ActorColumns {
  const columns = { actorId: actor.id, actorEmail: actor.email, actorRole: actor.role };
  return requestId === undefined ? columns : { ...columns, requestId };
}
