import "server-only";
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

// Configuration secrets at rest (a source's URL with its credentials): AES-256-GCM under a key derived from the
// configuration secret. The sealed text names the key it was sealed with (a fingerprint, not the key), so a
// database read with another key says so instead of failing as corrupt data.

const VERSION = "v1";

export class SealError extends Error {
  override name = "SealError";
}

export interface SealKey {
  key: Buffer;
  /** 8 hex digits of SHA-256 over the key: which key sealed a text */
  id: string;
}

export function sealKey(secret: string): SealKey {
  const key = createHash("sha256").update(`redrive config seal\u0000${secret}`).digest();
  return { key, id: createHash("sha256").update(key).digest("hex").slice(0, 8) };
}

/** `v1.<key id>.<iv>.<ciphertext + tag>`, base64url. */
export function seal(plain: string, k: SealKey): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", k.key, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return [VERSION, k.id, iv.toString("base64url"), body.toString("base64url")].join(".");
}

/** Whether `text` is in the sealed form (a URL or any plain secret never starts like this). */
export function isSealed(text: string): boolean {
  return /^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+$/.test(text);
}

export function unseal(sealed: string, k: SealKey): string {
  const [version, id, iv, body] = sealed.split(".");
  if (version !== VERSION || !id || !iv || !body) throw new SealError("not a sealed value");
  if (id !== k.id)
    throw new SealError(`sealed with another key (${id}; this one is ${k.id}): set REDRIVE_SECRET_KEY to the key it was sealed with`);
  const data = Buffer.from(body, "base64url");
  if (data.length < 16) throw new SealError("not a sealed value");
  const decipher = createDecipheriv("aes-256-gcm", k.key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(data.subarray(data.length - 16));
  try {
    return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString("utf8");
  } catch {
    throw new SealError("the sealed value was altered (its authentication tag does not match)");
  }
}
