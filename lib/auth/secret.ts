import "server-only";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Env } from "../env";

// The secret signs session cookies. Production must bring its own; anywhere else one is generated on first
// use and kept next to the embedded database, so restarting the dev server does not sign everybody out.

export const SECRET_FILE = "auth-secret";
const MIN_LENGTH = 32;

export class AuthSecretError extends Error {
  override name = "AuthSecretError";
}

export function resolveAuthSecret(env: Pick<Env, "BETTER_AUTH_SECRET" | "NODE_ENV" | "REDRIVE_DATA_DIR">): string {
  if (env.BETTER_AUTH_SECRET) return env.BETTER_AUTH_SECRET;
  if (env.NODE_ENV === "production") {
    throw new AuthSecretError(
      "BETTER_AUTH_SECRET is not set. Production needs a stable secret of at least 32 characters, e.g. " +
        "BETTER_AUTH_SECRET=$(openssl rand -base64 32)",
    );
  }
  const file = join(env.REDRIVE_DATA_DIR, SECRET_FILE);
  const existing = readSecretFile(file);
  if (existing !== null) return existing;
  mkdirSync(env.REDRIVE_DATA_DIR, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    // "wx": never overwrite; a concurrent process (CLI next to the server) may have just written one.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600); // the umask may have widened the mode given to writeFileSync
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const raced = readSecretFile(file);
    if (raced === null) throw new AuthSecretError(`${file} exists but is empty`);
    return raced;
  }
}

function readSecretFile(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const secret = text.trim();
  if (secret === "") return null;
  if (secret.length < MIN_LENGTH)
    throw new AuthSecretError(`${file}: the secret is shorter than ${MIN_LENGTH} characters; delete the file to generate a new one`);
  return secret;
}
