import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { canonicalJson } from "../json/canonical";
import type { AuditKey, AuditKeyring } from "./keys";

// A checkpoint is the chain's head written down somewhere the database cannot reach (a file off the database host,
// a ticket, a log shipper). A superuser who cuts the chain's tail and moves audit_head back leaves a chain that is
// consistent in itself; only a record of where it once ended shows what is missing. The signature (HMAC under the
// audit key's checkpoint half) makes a checkpoint Redrive's own: a made-up one is refused, not trusted.

export const CHECKPOINT_FORMAT = "redrive-audit-checkpoint/1";

const HEX64 = /^[0-9a-f]{64}$/;

export const CheckpointSchema = z
  .object({
    format: z.literal(CHECKPOINT_FORMAT),
    /** the id of the chain's last event (0: the empty chain) */
    sequence: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    hash: z.string().regex(HEX64, "must be 64 hex digits"),
    keyId: z.string().regex(/^[0-9a-f]{16}$/, "must be 16 hex digits"),
    at: z.string().datetime({ offset: true }),
    signature: z.string().regex(HEX64, "must be 64 hex digits"),
  })
  .strict();

export type Checkpoint = z.infer<typeof CheckpointSchema>;

export interface ChainHead {
  sequence: string;
  hash: string;
}

function signature(key: AuditKey, c: Omit<Checkpoint, "signature">): string {
  const { format, sequence, hash, keyId, at } = c;
  return createHmac("sha256", key.checkpoint).update(canonicalJson({ at, format, hash, keyId, sequence })).digest("hex");
}

export function signCheckpoint(head: ChainHead, key: AuditKey, now: Date): Checkpoint {
  const unsigned = {
    format: CHECKPOINT_FORMAT,
    sequence: Number(head.sequence),
    hash: head.hash,
    keyId: key.id,
    at: now.toISOString(),
  } as const;
  return { ...unsigned, signature: signature(key, unsigned) };
}

/** The checkpoint's signature checked with the key it names: the problem, or null. */
export function checkpointSignatureProblem(c: Checkpoint, keys: AuditKeyring): string | null {
  const key = keys.byId.get(c.keyId);
  if (!key)
    return `it is signed with key ${c.keyId}, which this verifier does not hold: set REDRIVE_AUDIT_KEY or REDRIVE_AUDIT_RETIRED_KEYS`;
  const expected = Buffer.from(signature(key, c), "hex");
  if (!timingSafeEqual(expected, Buffer.from(c.signature, "hex")))
    return "its signature does not match: it was altered, or not written by this Redrive";
  return null;
}

/** A checkpoint file's text, parsed: the checkpoint, or what is wrong with it. */
export function parseCheckpoint(text: string): { ok: true; checkpoint: Checkpoint } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `not JSON (${(e as Error).message})` };
  }
  const r = CheckpointSchema.safeParse(json);
  if (r.success) return { ok: true, checkpoint: r.data };
  return { ok: false, problem: r.error.issues.map((i) => `${i.path.join(".") || "checkpoint"}: ${i.message}`).join("; ") };
}

/**
 * Does the chain still extend the checkpoint? `hashAt` is the hash of the checkpoint's event as the chain holds
 * it now (undefined: no such event), `head` where the verified chain ends. The problem, or null.
 */
export function extendsCheckpoint(c: Checkpoint, head: ChainHead, hashAt: string | undefined): string | null {
  if (BigInt(head.sequence) < BigInt(c.sequence)) {
    return `the chain ends at event ${head.sequence} but the checkpoint of ${c.at} was taken at event ${c.sequence}: events were cut from its end (and the head moved back)`;
  }
  if (hashAt === undefined) return `event ${c.sequence}, the checkpoint's head, is not in the chain any more: the chain was rewritten`;
  if (hashAt !== c.hash) {
    return `event ${c.sequence} has hash ${hashAt.slice(0, 12)}…, the checkpoint of ${c.at} says ${c.hash.slice(0, 12)}…: the chain was rewritten at or before it`;
  }
  return null;
}
