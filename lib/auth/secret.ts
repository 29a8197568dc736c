import "server-only";
import type { Env } from "../env";
import { resolveKeptSecret, SecretError } from "../secrets/kept-secret";

// The secret signs session cookies. Production must bring its own; anywhere else one is generated on first
// use and kept next to the embedded database, so restarting the dev server does not sign everybody out.

export const SECRET_FILE = "auth-secret";

export { SecretError as AuthSecretError };

export function resolveAuthSecret(env: Pick<Env, "BETTER_AUTH_SECRET" | "NODE_ENV" | "REDRIVE_DATA_DIR">): string {
  return resolveKeptSecret({
    variable: "BETTER_AUTH_SECRET",
    value: env.BETTER_AUTH_SECRET,
    required: env.NODE_ENV === "production",
    hint: "BETTER_AUTH_SECRET=$(openssl rand -base64 32)",
    dataDir: env.REDRIVE_DATA_DIR,
    file: SECRET_FILE,
  });
}
