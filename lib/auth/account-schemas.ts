import { z } from "zod";
import { ROLES, type Role } from "./permissions";

// Request bodies and response shapes of the account and token APIs, shared by the route handlers, the CLI
// and the settings page. Framework-free and client-safe: nothing here may import server code.

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

export const EmailSchema = z.string().trim().toLowerCase().pipe(z.email("must be an email address").max(254));
export const PasswordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`)
  // As the API refuses it (lib/api/handler.ts): the CLI's --password-stdin takes the same passwords, no more.
  .refine((s) => !s.includes("\0"), "must not contain the NUL character");
export const RoleSchema = z.enum(ROLES, { error: `must be one of ${ROLES.join(", ")}` });

export const IdParams = z.object({ id: z.string().min(1).max(100) });

export const CreateTokenBody = z.strictObject({ name: z.string().trim().min(1, "is required").max(100) });
export type CreateTokenBody = z.infer<typeof CreateTokenBody>;

export const CreateUserBody = z.strictObject({
  email: EmailSchema,
  name: z.string().trim().min(1).max(200).optional(),
  role: RoleSchema,
  /** omitted: a random password is generated and returned once */
  password: PasswordSchema.optional(),
});
export type CreateUserBody = z.infer<typeof CreateUserBody>;

export const PatchUserBody = z
  .strictObject({ role: RoleSchema.optional(), disabled: z.boolean().optional() })
  .refine((b) => b.role !== undefined || b.disabled !== undefined, "give role and/or disabled");
export type PatchUserBody = z.infer<typeof PatchUserBody>;

export interface TokenView {
  id: string;
  name: string;
  /** the first characters of the token, e.g. "rdv_AbC123" */
  prefix: string;
  userId: string;
  /** the owner's e-mail, in an admin's list of every user's tokens */
  userEmail?: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** What POST /api/tokens returns: the only time the token itself is shown. */
export interface CreatedToken {
  id: string;
  token: string;
  prefix: string;
  name: string;
  createdAt: string;
}

export interface UserView {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  demo: boolean;
  createdAt: string;
}

/** What POST /api/users returns; `password` only when it was generated. */
export interface CreatedUser {
  user: UserView;
  password?: string;
}

/** GET /api/tokens?all=1: every user's tokens (admins, tokens:manage); without it, the caller's own. */
export const ListTokensQuery = z.object({
  all: z.preprocess((v) => (v === "1" || v === "true" ? true : v === "0" || v === "false" ? false : v), z.boolean()).optional(),
});
