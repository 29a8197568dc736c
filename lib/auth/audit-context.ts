import { auditActor, type Actor, type ActorColumns } from "../audit/actor";
import { isRole } from "./permissions";

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

/** A user row or a session's user as an actor: a role the database holds that Redrive does not know is recorded as null. */
export function userActor(user: { id: string; email: string | null; role?: unknown }): Actor {
  return { id: user.id, email: user.email, role: isRole(user.role) ? user.role : null };
}

/** Someone not signed in, known only by the e-mail they gave (a refused sign-in). */
export function unverifiedActor(email: string | null): Actor {
  return { id: null, email, role: null };
}
