import "server-only";
import { getEnv, type Env } from "../env";
import { resolveKeptSecret } from "./kept-secret";
import { sealKey, type SealKey } from "./seal";

export const CONFIG_KEY_FILE = "secret-key";

let cached: { secret: string; key: SealKey } | null = null;

/** REDRIVE_SECRET_KEY, or (outside production) the one kept in the data directory. */
export function resolveConfigSecret(env: Pick<Env, "REDRIVE_SECRET_KEY" | "NODE_ENV" | "REDRIVE_DATA_DIR">): string {
  return resolveKeptSecret({
    variable: "REDRIVE_SECRET_KEY",
    value: env.REDRIVE_SECRET_KEY,
    required: env.NODE_ENV === "production",
    hint: "REDRIVE_SECRET_KEY=$(openssl rand -base64 32)",
    dataDir: env.REDRIVE_DATA_DIR,
    file: CONFIG_KEY_FILE,
  });
}

/** The key that seals configuration secrets: REDRIVE_SECRET_KEY, or generated into the data directory. */
export function configKey(): SealKey {
  const secret = resolveConfigSecret(getEnv());
  if (cached?.secret !== secret) cached = { secret, key: sealKey(secret) };
  return cached.key;
}
