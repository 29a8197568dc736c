import type { Env } from "../env";

// Who may hold a session or use a token at all, whatever their role. Checked when a session is created (so
// the sign-in itself fails) and again on every request (so disabling an account takes effect at once).

export interface AccountState {
  disabled: boolean;
  demo: boolean;
}

export type AccountRefusal = "account_disabled" | "demo_account_disabled";

export function accountRefusal(account: AccountState, env: Pick<Env, "NODE_ENV" | "REDRIVE_DEMO">): AccountRefusal | null {
  if (account.disabled) return "account_disabled";
  // The demo accounts have published passwords: a production deployment must opt in to them explicitly.
  if (account.demo && env.NODE_ENV === "production" && env.REDRIVE_DEMO !== "1") return "demo_account_disabled";
  return null;
}

export const REFUSAL_MESSAGES: Record<AccountRefusal, string> = {
  account_disabled: "This account is disabled. Ask an administrator to enable it.",
  demo_account_disabled: "Demo accounts are disabled in production (set REDRIVE_DEMO=1 to allow them).",
};
