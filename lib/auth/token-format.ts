import { createHash, randomBytes } from "node:crypto";

// API tokens: "rdv_" + 32 random bytes in base64url (43 characters). The prefix makes a leaked token easy to
// recognise for secret scanners; only the SHA-256 is stored, so the database never holds a usable token.
// A plain hash (no salt, no stretching) is enough here: the input has 256 bits of entropy.

export const TOKEN_PREFIX = "rdv_";
const TOKEN_RE = /^rdv_[A-Za-z0-9_-]{43}$/;
/** how much of the token is kept in clear to recognise it in lists: "rdv_" + 6 characters */
export const DISPLAY_PREFIX_LENGTH = TOKEN_PREFIX.length + 6;

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export function displayPrefix(token: string): string {
  return token.slice(0, DISPLAY_PREFIX_LENGTH);
}

export function isWellFormedToken(token: string): boolean {
  return TOKEN_RE.test(token);
}

/**
 * The token of an `Authorization: Bearer …` header. `undefined`: no bearer credentials were sent (fall back
 * to the session cookie); `null`: bearer credentials were sent but are malformed (refuse, do not fall back).
 */
export function bearerToken(authorization: string | null): string | null | undefined {
  if (authorization === null) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  if (!m) return /^Bearer\b/i.test(authorization) ? null : undefined;
  const token = m[1] ?? "";
  return isWellFormedToken(token) ? token : null;
}
