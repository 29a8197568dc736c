import { createHash } from "node:crypto";

// What provision() creates on the server for one source, named after the source so an operator listing streams
// sees whose it is. Pure.

/** The two advisories JetStream publishes when a consumer gives up on a message. */
export const ADVISORY_PREFIX = {
  maxDeliveries: "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES",
  terminated: "$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED",
} as const;

const MAX_TOKEN = 48;

/**
 * The source name as a JetStream name token: letters, digits, '_' and '-' survive; anything else becomes '_'.
 * When that changed the name (or it is long), a hash of the original follows, so "a.b" and "a_b" stay apart.
 */
export function nameToken(sourceName: string): string {
  const safe = sourceName.replace(/[^A-Za-z0-9_-]/g, "_");
  if (safe === sourceName && safe.length > 0 && safe.length <= MAX_TOKEN) return safe;
  const hash = createHash("sha256").update(sourceName).digest("hex").slice(0, 8);
  return `${safe.slice(0, MAX_TOKEN - 9)}_${hash}`;
}

export interface AdvisoryCapture {
  /** the file-backed stream that keeps the advisories until Redrive has stored their messages */
  stream: string;
  /** its durable pull consumer */
  consumer: string;
  /** the advisory subjects it captures */
  subjects: [string, string];
}

export function advisoryCapture(sourceName: string, stream: string, consumer: string | undefined): AdvisoryCapture {
  const token = nameToken(sourceName);
  const who = `${stream}.${consumer ?? "*"}`;
  return {
    stream: `REDRIVE_ADVISORIES_${token}`,
    consumer: `REDRIVE_${token}`,
    subjects: [`${ADVISORY_PREFIX.maxDeliveries}.${who}`, `${ADVISORY_PREFIX.terminated}.${who}`],
  };
}
