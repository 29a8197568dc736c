import type { Role } from "./permissions";

// The break-glass account: while password sign-in is off, the one account that may still sign in with a
// password, so an administrator can get in when the identity provider cannot. It is only worth that while it is
// an enabled admin: sign-in checks the role, and changing its role or disabling it is refused while the setting
// depends on it. Pure: the settings and the account are passed in.

export interface BreakGlassSettings {
  /** false: only the break-glass account may sign in with a password */
  passwordSignIn: boolean;
  /** lowercased, or null when none is set */
  breakGlassEmail: string | null;
}

/** Whether this e-mail is the break-glass account that password sign-in depends on now. */
export function isBreakGlass(settings: BreakGlassSettings, email: string): boolean {
  return !settings.passwordSignIn && settings.breakGlassEmail !== null && email.trim().toLowerCase() === settings.breakGlassEmail;
}

/** Before the password is checked: whether a password sign-in for this e-mail may be tried at all. */
export function passwordSignInAllowed(settings: BreakGlassSettings, email: string): boolean {
  return settings.passwordSignIn || isBreakGlass(settings, email);
}

/**
 * After the password was verified: whether this account may hold a password session. With password sign-in
 * off, the break-glass account must still be an admin (a demoted one holds no more than its new role's rights,
 * and that role signs in through the identity provider like everyone else).
 */
export function passwordSessionAllowed(settings: BreakGlassSettings, account: { email: string; role: Role }): boolean {
  return settings.passwordSignIn || (isBreakGlass(settings, account.email) && account.role === "admin");
}

/**
 * Why a change to an account is refused (the field and the rule), or null: while password sign-in is off, the
 * break-glass account is neither demoted nor disabled.
 */
export function breakGlassChangeRefusal(
  settings: BreakGlassSettings,
  account: { email: string },
  change: { role: Role; disabled: boolean },
): { path: "role" | "disabled"; message: string } | null {
  if (!isBreakGlass(settings, account.email)) return null;
  const rule =
    "is the break-glass admin while password sign-in is off (settings passwordSignIn and breakGlassEmail): " +
    "turn password sign-in on or name another break-glass admin first";
  if (change.role !== "admin") return { path: "role", message: rule };
  if (change.disabled) return { path: "disabled", message: rule };
  return null;
}
