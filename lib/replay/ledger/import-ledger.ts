import "server-only";
import type pg from "pg";
import { z } from "zod";
import { appendAudit } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { indexedTextProblem } from "../../db/column-limits";
import { inTimeRange } from "../../time/range";
import { inTransaction } from "../../db/transaction";
import { epochSecondsSchema, parseOffsetInstant } from "../../time/parse-time";
import { unstorableText } from "../../json/storable";

// `redrive ledger import`: keys an external system has already settled, loaded before a replay so those
// records count as deduped without being sent. One NDJSON line per key:
//   {"idempotency_key": "...", "kind"?: "spatial" | "afc", "applied_at"?: RFC 3339 | epoch seconds}
// or, for a tap, its hash as AFC systems name it: {"event_hash": "<64 hex>", "applied_at"?: …} (kind afc).
// Valid lines are imported in chunks (one transaction each, with one audit event); invalid lines are reported
// by number and skipped. Keys already known are left as they are (the first settlement wins).

const keyText = z
  .string()
  .min(1)
  .check((ctx) => {
    const problem = indexedTextProblem(ctx.value) ?? unstorableText(ctx.value);
    if (problem) ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
  });

const APPLIED_AT_FORMS = "must be an RFC 3339 timestamp with an offset or epoch seconds";

// RFC 3339 as ingest reads it ("t"/"z" in either case, a space for the "T": what Python's str(datetime) writes),
// with an offset — an external ledger's settlement time is not guessed —, or epoch seconds; to the microsecond.
// Years 0001–9999 once the offset is applied (9999-12-31T23:59-05:00 is year 10000 in UTC): anything else would
// fail the chunk's INSERT, not the line.
const appliedAt = z.unknown().transform((v, ctx): string => {
  if (typeof v === "number") {
    const epoch = epochSecondsSchema.safeParse(v);
    if (epoch.success) return epoch.data.exact;
    ctx.addIssue({ code: "custom", message: epoch.error.issues[0]?.message ?? APPLIED_AT_FORMS });
    return z.NEVER;
  }
  const instant = typeof v === "string" ? parseOffsetInstant(v) : null;
  if (instant === null) {
    ctx.addIssue({ code: "custom", message: APPLIED_AT_FORMS });
    return z.NEVER;
  }
  if (!inTimeRange(instant.date)) {
    ctx.addIssue({ code: "custom", message: "must be between the years 0001 and 9999 (UTC)" });
    return z.NEVER;
  }
  return instant.exact;
});

export const LedgerLineSchema = z
  .object({
    idempotency_key: keyText.optional(),
    event_hash: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "must be a SHA-256 hex digest (64 hex digits)")
      .optional(),
    kind: z.enum(["spatial", "afc"]).optional(),
    applied_at: appliedAt.optional(),
  })
  .check((ctx) => {
    const { idempotency_key: key, event_hash: hash, kind } = ctx.value;
    if ((key === undefined) === (hash === undefined)) {
      ctx.issues.push({
        code: "custom",
        path: ["idempotency_key"],
        message: "give idempotency_key or event_hash (one of them)",
        input: ctx.value,
      });
    } else if (hash !== undefined && kind === "spatial") {
      ctx.issues.push({ code: "custom", path: ["kind"], message: "an event_hash is a tap's key: kind must be afc", input: ctx.value });
    }
  })
  .transform(({ idempotency_key: key, event_hash: hash, kind, applied_at }) => ({
    // A tap's stored key is its hash in lower-case hex.
    idempotency_key: key ?? (hash as string).toLowerCase(),
    kind: hash !== undefined ? ("afc" as const) : kind,
    applied_at,
  }));

export interface LedgerImportResult {
  lines: number;
  imported: number;
  alreadyKnown: number;
  invalid: { line: number; message: string }[];
}

const CHUNK = 5000;
const MAX_REPORTED = 100;

export async function importLedger(
  pool: pg.Pool,
  // plain lines, or lines as lib/cli/lines.ts reads them (with why one could not be read: not UTF-8)
  lines: AsyncIterable<string | { text: string; error: string | null }>,
  ctx: { actor: Actor; now: Date; source: string },
): Promise<LedgerImportResult> {
  const result: LedgerImportResult = { lines: 0, imported: 0, alreadyKnown: 0, invalid: [] };
  let invalidCount = 0;
  let chunk: z.output<typeof LedgerLineSchema>[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    const rows = chunk;
    chunk = [];
    const inserted = await inTransaction(pool, async (client) => {
      const r = await client.query(
        `INSERT INTO ledger_entry (idempotency_key, kind, applied_at, origin, dead_letter_id, entity_key, observed_at)
         SELECT t.key, coalesce(t.kind, d.kind), coalesce(t.applied_at, $4), 'import', d.id, d.entity_key, d.observed_at
         FROM unnest($1::text[], $2::"DeadLetterKind"[], $3::timestamptz[]) AS t(key, kind, applied_at)
         LEFT JOIN LATERAL (SELECT id, kind, entity_key, observed_at FROM dead_letter
           WHERE kind = ANY (CASE WHEN t.kind IS NULL THEN '{spatial,afc}' ELSE ARRAY[t.kind] END) AND idempotency_key = t.key ORDER BY id LIMIT 1) d ON true
         ORDER BY t.key
         ON CONFLICT (idempotency_key) DO NOTHING`,
        [rows.map((r) => r.idempotency_key), rows.map((r) => r.kind ?? null), rows.map((r) => r.applied_at ?? null), ctx.now],
      );
      const n = r.rowCount ?? 0;
      await appendAudit(
        client,
        [
          {
            ...auditActor(ctx.actor),
            action: "ledger.import",
            targetType: "ledger",
            targetId: null,
            after: { source: ctx.source, lines: rows.length, imported: n, alreadyKnown: rows.length - n },
          },
        ],
        ctx.now,
      );
      return n;
    });
    result.imported += inserted;
    result.alreadyKnown += rows.length - inserted;
  };
  for await (const item of lines) {
    result.lines++;
    if (typeof item !== "string" && item.error !== null) {
      invalidCount++;
      if (result.invalid.length < MAX_REPORTED) result.invalid.push({ line: result.lines, message: item.error });
      continue;
    }
    const line = (typeof item === "string" ? item : item.text).trim();
    if (line === "") continue;
    let parsed: z.ZodSafeParseResult<z.output<typeof LedgerLineSchema>>;
    try {
      parsed = LedgerLineSchema.safeParse(JSON.parse(line));
    } catch (e) {
      invalidCount++;
      if (result.invalid.length < MAX_REPORTED) result.invalid.push({ line: result.lines, message: `not JSON: ${(e as Error).message}` });
      continue;
    }
    if (!parsed.success) {
      invalidCount++;
      const issue = parsed.error.issues[0];
      if (result.invalid.length < MAX_REPORTED) {
        result.invalid.push({ line: result.lines, message: `${issue?.path.join(".") || "(line)"}: ${issue?.message ?? "invalid"}` });
      }
      continue;
    }
    chunk.push(parsed.data);
    if (chunk.length >= CHUNK) await flush();
  }
  await flush();
  if (invalidCount > result.invalid.length)
    result.invalid.push({ line: 0, message: `… and ${invalidCount - result.invalid.length} more invalid lines` });
  return result;
}
