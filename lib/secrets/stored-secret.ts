import "server-only";
import { configKey } from "./config-key";
import { isSealed, seal, unseal } from "./seal";

// Configuration secrets other than a source's URL (a replay sink's URL and headers, an alert webhook's URL) are
// kept in columns that held them in clear before they were sealed: reading takes both forms, and
// lib/startup/seal-stored-secrets.ts seals what is still in clear when the server starts.

export function sealSecret(plain: string): string {
  return seal(plain, configKey());
}

/** The secret in clear; throws a SealError naming the key when it was sealed with another one. */
export function openSecret(stored: string): string {
  return isSealed(stored) ? unseal(stored, configKey()) : stored;
}
