import "server-only";
import type pg from "pg";
import type { JsonValue } from "@/lib/json/value";
import { maskJson, maskText } from "../masking/mask";
import type { MaskRules } from "../masking/rules";
import { HEAVY_DETAIL_BYTES } from "../dead-letters/query/detail-answer";

// The record's evidence as a reader may see it: payload and raw envelope, masked unless the reader may and did
// ask otherwise, with the JSON pointers of what was masked (the UI offers "reveal" on each).

export interface Evidence {
  payload: JsonValue | null;
  rawEnvelope: string | null;
  /** "/payload/…" and "/rawEnvelope/…" pointers of masked values; empty when nothing was masked */
  masked: string[];
}

export function maskEvidence(payload: JsonValue | null, rawEnvelope: string | null, mask: MaskRules | null): Evidence {
  if (!mask) return { payload, rawEnvelope, masked: [] };
  const inPayload: string[] = [];
  const inRaw: string[] = [];
  return {
    payload: payload === null ? null : maskJson(payload, mask, inPayload),
    rawEnvelope: rawEnvelope === null ? null : maskText(rawEnvelope, mask, inRaw),
    masked: [...new Set([...inPayload.map((p) => `/payload${p}`), ...inRaw.map((p) => `/rawEnvelope${p}`)])],
  };
}

/** A record too large to read on the thread that answers requests: how large, and nothing of it. */
export interface HeavyEvidence {
  heavy: true;
  storedBytes: number;
}

/**
 * The evidence of one record, or, past HEAVY_DETAIL_BYTES stored (a 1,000,000-vertex poison record), only its size:
 * parsing, masking and serializing megabytes here would hold the event loop, as the detail's read avoids
 * (readDetailForReader); the record's page builds it off this thread.
 */
export async function recordEvidence(
  db: pg.Pool | pg.PoolClient,
  id: string,
  mask: MaskRules | null,
): Promise<Evidence | HeavyEvidence | null> {
  const { rows } = await db.query<{ payload: JsonValue | null; raw_envelope: string | null; stored: string; heavy: boolean }>(
    `SELECT CASE WHEN s.heavy THEN NULL ELSE d.payload END AS payload, CASE WHEN s.heavy THEN NULL ELSE d.raw_envelope END AS raw_envelope,
       b.stored::text AS stored, s.heavy
     FROM dead_letter d,
       LATERAL (SELECT coalesce(octet_length(d.raw_envelope), 0)::bigint + coalesce(pg_column_size(d.payload), 0)::bigint AS stored) b,
       LATERAL (SELECT b.stored > $2 AS heavy) s
     WHERE d.id = $1`,
    [id, HEAVY_DETAIL_BYTES],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.heavy) return { heavy: true, storedBytes: Number(row.stored) };
  return maskEvidence(row.payload, row.raw_envelope, mask);
}
