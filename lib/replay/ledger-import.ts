import type pg from "pg";
import { z } from "zod";
import { appendAudit, type Actor } from "../audit/append";
import { inTimeRange, indexedTextProblem } from "../db/pg-range";
import { inTransaction } from "../db/transaction";
import { unstorableText } from "../dead-letters/unstorable";

// `redrive ledger import`: keys an external system has already settled, loaded before a replay so those
// records count as deduped without being sent. One NDJSON line per key:
//   {"idempotency_key": "...", "kind"?: "spatial" | "afc", "applied_at"?: RFC 3339}
// Valid lines are imported in chunks (one transaction each, with one audit event); invalid lines are reported
// by number and skipped. Keys already known are left as they are (the first settlement wins).

export const LedgerLineSchema = z.object({
  idempotency_key: z.string().min(1).check((ctx) => {
    const problem = indexedTextProblem(ctx.value) ?? unstorableText(ctx.value);
    if (problem) ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
  }),
  kind: z.enum(["spatial", "afc"]).optional(),
  // Years 0001–9999 once the offset is applied (9999-12-31T23:59-05:00 is year 10000 in UTC): anything else would
  // fail the chunk's INSERT, not the line.
  applied_at: z.iso.datetime({ offset: true }).refine((v) => inTimeRange(new Date(v)), "must be between the years 0001 and 9999 (UTC)").optional(),
});

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
  lines: AsyncIterable<string>,
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
      await appendAudit(client, [{
        actorId: ctx.actor.id, actorEmail: ctx.actor.email, actorRole: ctx.actor.role,
        action: "ledger.import", targetType: "ledger", targetId: null,
        after: { source: ctx.source, lines: rows.length, imported: n, alreadyKnown: rows.length - n },
      }], ctx.now);
      return n;
    });
    result.imported += inserted;
    result.alreadyKnown += rows.length - inserted;
  };
  for await (const raw of lines) {
    result.lines++;
    const line = raw.trim();
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
  if (invalidCount > result.invalid.length) result.invalid.push({ line: 0, message: `… and ${invalidCount - result.invalid.length} more invalid lines` });
  return result;
}
