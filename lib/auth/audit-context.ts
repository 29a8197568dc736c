import type { Actor, AuditInput } from "../audit/append";

/** Who is making an account change, when, and under which request: what every audit event of it records. */
export interface AuditContext {
  actor: Actor;
  now: Date;
  requestId?: string | null;
}

export function actorFields(ctx: AuditContext): Pick<AuditInput, "actorId" | "actorEmail" | "actorRole" | "requestId"> {
  return { actorId: ctx.actor.id, actorEmail: ctx.actor.email, actorRole: ctx.actor.role, requestId: ctx.requestId ?? null };
}
