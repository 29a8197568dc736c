import "server-only";
import { can, isRole, type Permission, type Role } from "../auth/permissions";
import { readRecordScope } from "../auth/teams/read-scope";
import { findUserByEmail } from "../auth/users";
import type { Db } from "../db/client";
import { UNSCOPED, type RecordScope } from "../scope/record-scope";
import { CliUsageError } from "./context";

// The scope a CLI read (lookup, export, group list|show, replay list|status, rule list|show) reads through. The CLI
// talks to the database directly, so by default it reads company-wide (the operator holds the database). With
// --as <email> it reads as that user does in the API: their teams bound what is found, as `replay create --as`
// bounds what is batched.

export interface ReadingAs {
  scope: RecordScope;
  /** the user named by --as; null: the operator, company-wide */
  user: { id: string; email: string; role: Role } | null;
}

/**
 * `--as` for read commands: the user must be active and hold the permission the API route of the same read asks
 * (reading records, unless the read is a step of something only some roles do: a batch's preview).
 */
export async function readingAs(db: Db, email: string | undefined, permission: Permission = "dead_letters:read"): Promise<ReadingAs> {
  if (email === undefined) return { scope: UNSCOPED, user: null };
  const user = await findUserByEmail(db.pool, email);
  if (!user || user.disabled || !isRole(user.role)) throw new CliUsageError(`--as: no active user with e-mail ${email}`);
  if (!can(user.role, permission)) throw new Error(`--as: ${email} (${user.role}) lacks permission ${permission}`); // a refusal: exit 1
  return { scope: await readRecordScope(db.pool, user.id), user: { id: user.id, email: user.email, role: user.role } };
}

export const READ_AS_HELP = "read as this user: their teams bound what is found (default: company-wide, as the operator)";
