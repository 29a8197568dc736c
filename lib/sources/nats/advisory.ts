import { z } from "zod";

// Reading one delivery from the advisory consumer: the advisory's JSON (which message died, where, why) and the
// delivery's own reply subject (where it sits in the advisory stream). Pure.

export const ADVISORY_TYPES = {
  "io.nats.jetstream.advisory.v1.max_deliver": "max_deliveries",
  "io.nats.jetstream.advisory.v1.terminated": "terminated",
} as const;

export type DeathReason = (typeof ADVISORY_TYPES)[keyof typeof ADVISORY_TYPES];

// Not strict: newer servers add fields (2.10.4+ puts term()'s reason in `reason`, clusters add `domain`).
const advisorySchema = z.object({
  type: z.enum(Object.keys(ADVISORY_TYPES) as [keyof typeof ADVISORY_TYPES]),
  id: z.string(),
  timestamp: z.string(),
  stream: z.string().min(1),
  consumer: z.string().min(1),
  stream_seq: z.number().int().positive(),
  consumer_seq: z.number().int().nonnegative().optional(),
  deliveries: z.number().int().nonnegative(),
  reason: z.string().optional(),
  domain: z.string().optional(),
});

export type Advisory = z.output<typeof advisorySchema>;

export type AdvisoryResult = { ok: true; advisory: Advisory } | { ok: false; problem: string };

export function parseAdvisory(data: Uint8Array): AdvisoryResult {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
  } catch {
    return { ok: false, problem: "the advisory is not JSON" };
  }
  const parsed = advisorySchema.safeParse(json);
  if (parsed.success) return { ok: true, advisory: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join(".") : "advisory";
  return { ok: false, problem: `the advisory is not a max-deliveries or terminated advisory (${where}: ${issue?.message ?? "invalid"})` };
}

export function deathReason(advisory: Advisory): DeathReason {
  return ADVISORY_TYPES[advisory.type];
}

export interface AckSubjectInfo {
  stream: string;
  consumer: string;
  /** how many times the advisory consumer has handed this advisory out */
  deliveries: number;
  /** the advisory's sequence in the advisory stream */
  streamSeq: number;
}

/**
 * A JetStream delivery's reply subject: `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>`,
 * or since 2.9 optionally with `<domain>.<account hash>` after `$JS.ACK` and a random token at the end.
 */
export function parseAckSubject(reply: string): AckSubjectInfo | null {
  const t = reply.split(".");
  if (t[0] !== "$JS" || t[1] !== "ACK") return null;
  let rest: string[];
  if (t.length === 9) rest = t.slice(2);
  else if (t.length >= 12) rest = t.slice(4);
  else return null;
  const [stream, consumer, delivered, sseq] = rest;
  const deliveries = Number(delivered);
  const streamSeq = Number(sseq);
  if (!stream || !consumer || !Number.isSafeInteger(deliveries) || !Number.isSafeInteger(streamSeq) || streamSeq < 1) return null;
  return { stream, consumer, deliveries, streamSeq };
}
