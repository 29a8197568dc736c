import "server-only";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// A secret from the environment or, where the environment may omit it, generated on first use and kept in the
// data directory (mode 0600) next to the embedded database, so a restart keeps what it protects readable.

const MIN_LENGTH = 32;

export class SecretError extends Error {
  override name = "SecretError";
}

export interface KeptSecret {
  /** the environment variable that sets it */
  variable: string;
  value: string | undefined;
  /** true: the variable must be set (production) */
  required: boolean;
  /** how to make one, for the message when it is missing */
  hint: string;
  dataDir: string;
  file: string;
}

export function resolveKeptSecret(s: KeptSecret): string {
  if (s.value) return s.value;
  if (s.required)
    throw new SecretError(
      `${s.variable} is not set. Production needs a stable secret of at least ${MIN_LENGTH} characters, e.g. ${s.hint}`,
    );
  const file = join(s.dataDir, s.file);
  const existing = readSecretFile(file);
  if (existing !== null) return existing;
  mkdirSync(s.dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    // "wx": never overwrite; a concurrent process (CLI next to the server) may have just written one.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600); // the umask may have widened the mode given to writeFileSync
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const raced = readSecretFile(file);
    if (raced === null) throw new SecretError(`${file} exists but is empty`);
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
    throw new SecretError(`${file}: the secret is shorter than ${MIN_LENGTH} characters; delete the file to generate a new one`);
  return secret;
}
