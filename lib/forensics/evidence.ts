import "server-only";
import type pg from "pg";
import type { JsonValue } from "@/lib/json/value";
import { maskJson, maskText } from "../masking/mask";
import type { MaskRules } from "../masking/rules";

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

export async function recordEvidence(db: pg.Pool | pg.PoolClient, id: string, mask: MaskRules | null): Promise<Evidence | null> {
  const { rows } = await db.query<{ payload: JsonValue | null; raw_envelope: string | null }>(
    "SELECT payload, raw_envelope FROM dead_letter WHERE id = $1",
    [id],
  );
  const row = rows[0];
  return row ? maskEvidence(row.payload, row.raw_envelope, mask) : null;
}
