import "server-only";
import { getEnv, splitKeys, type Env } from "../env";
import { resolveKeptSecret } from "../secrets/kept-secret";
import { auditKeyring, type AuditKeyring } from "./keys";

// The audit keys this process holds, from the environment like the other secrets (lib/secrets): REDRIVE_AUDIT_KEY,
// or one generated into the data directory outside production. Retired keys come only from the environment:
// whoever rotates keeps the old one there, so its events still verify and the rotation can be recorded under it.

export const AUDIT_KEY_FILE = "audit-key";

type KeyEnv = Pick<Env, "REDRIVE_AUDIT_KEY" | "REDRIVE_AUDIT_RETIRED_KEYS" | "NODE_ENV" | "REDRIVE_DATA_DIR">;

/** The current audit key's secret: REDRIVE_AUDIT_KEY, or (outside production) the one kept in the data directory. */
export function resolveAuditSecret(env: Pick<Env, "REDRIVE_AUDIT_KEY" | "NODE_ENV" | "REDRIVE_DATA_DIR">): string {
  return resolveKeptSecret({
    variable: "REDRIVE_AUDIT_KEY",
    value: env.REDRIVE_AUDIT_KEY,
    required: env.NODE_ENV === "production",
    hint: "REDRIVE_AUDIT_KEY=$(openssl rand -base64 32)",
    dataDir: env.REDRIVE_DATA_DIR,
    file: AUDIT_KEY_FILE,
  });
}

let cached: { env: string; keys: AuditKeyring } | null = null;

export function configuredAuditKeys(env: KeyEnv = getEnv()): AuditKeyring {
  // Every append asks: read the key file and derive the keys once per configuration, not once per transaction.
  const id = JSON.stringify([env.REDRIVE_AUDIT_KEY, env.REDRIVE_AUDIT_RETIRED_KEYS, env.NODE_ENV, env.REDRIVE_DATA_DIR]);
  if (cached?.env === id) return cached.keys;
  cached = { env: id, keys: auditKeyring(resolveAuditSecret(env), splitKeys(env.REDRIVE_AUDIT_RETIRED_KEYS)) };
  return cached.keys;
}
