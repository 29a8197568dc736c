import type { Env } from "../env";

// The secrets a production process must be given: under NODE_ENV=production none is generated into the data
// directory (kept-secret.ts), so a process started without one looks healthy and fails at first use — every sign-in
// (session secret), nearly every change (audit key), every source or sink saved (sealing key). Each way in that
// starts a production process (`npm start`, `npm run serve`, `redrive worker`) refuses to start instead.

export const PRODUCTION_SECRETS = ["BETTER_AUTH_SECRET", "REDRIVE_AUDIT_KEY", "REDRIVE_SECRET_KEY"] as const;

type SecretName = (typeof PRODUCTION_SECRETS)[number];
type SecretEnv = Pick<Env, "NODE_ENV" | SecretName>;

/** A worker signs no sessions: it needs the audit and sealing keys only. */
export const WORKER_SECRETS: readonly SecretName[] = ["REDRIVE_AUDIT_KEY", "REDRIVE_SECRET_KEY"];

/** The production secrets (of `names`) `env` lacks; none outside production. */
export function missingProductionSecrets(env: SecretEnv, names: readonly SecretName[] = PRODUCTION_SECRETS): string[] {
  if (env.NODE_ENV !== "production") return [];
  return names.filter((name) => !env[name]);
}

/** Why a production process will not start without them, or null when nothing is missing. */
export function productionSecretsRefusal(env: SecretEnv, names: readonly SecretName[] = PRODUCTION_SECRETS): string | null {
  const missing = missingProductionSecrets(env, names);
  if (missing.length === 0) return null;
  return `NODE_ENV=production needs ${missing.join(", ")} (each at least 32 characters, e.g. $(openssl rand -base64 32))`;
}
