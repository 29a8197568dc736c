import { auditActor, type Actor, type ActorColumns } from "../audit/actor";

/** Who is making an account change, when, and under which request: what every audit event of it records. */
export interface AuditContext {
  actor: Actor;
  now: Date;
  requestId?: string | null;
}

/** The event's actor columns and request id (null when the context has none). */
export function actorFields(ctx: AuditContext): ActorColumns {
  return auditActor(ctx.actor, ctx.requestId ?? null);
}
