import type { JsonValue } from "../../json/value";
import { maskAnswer } from "../../masking/answer";
import type { MaskRules } from "../../masking/rules";
import { toDetail, type DetailRow, type FailureRow } from "./detail-row";
import { maskDetail } from "./mask-detail";

// The detail answer of a heavy record (a 12 MB envelope, a 1,000,000-vertex payload), built where it may cost
// seconds: parsing its JSON columns, both masking passes and serializing the answer, on a worker thread
// (lib/api/off-thread-reads.ts "detail"), the same steps the route and defineRoute take for an ordinary record. Pure.

/** The columns that make a record heavy, read as text (jsonb::text) rather than parsed by the driver. */
export const HEAVY_COLUMNS = ["raw_envelope", "payload", "analysis", "repaired_geometry", "origin"] as const;
export type HeavyColumn = (typeof HEAVY_COLUMNS)[number];
export type HeavyTexts = Record<HeavyColumn, string | null>;

/**
 * Past this many stored bytes in the heavy columns (as PostgreSQL stores them, compressed), the detail is heavy.
 * An edited record's light answer parses its envelope and payload, compares the received geometry with the
 * edited one and masks every string, each linear in the size: this bound keeps that well inside the health
 * budget (tests/integration/heavy-input.test.ts) on the thread that answers requests.
 */
export const HEAVY_DETAIL_BYTES = 256 * 1024;

function parsed(text: string | null): JsonValue | null {
  return text === null ? null : (JSON.parse(text) as JsonValue);
}

/**
 * The JSON text of GET /api/dead-letters/{id} for `row`, whose heavy columns came as text. `rules` null: the
 * reader may and did ask to see card data in clear (unmask=1); otherwise masked as any answer is.
 */
export function heavyDetailJson(row: DetailRow, failures: FailureRow[], texts: HeavyTexts, rules: MaskRules | null): string {
  const whole: DetailRow = {
    ...row,
    raw_envelope: texts.raw_envelope,
    payload: parsed(texts.payload),
    analysis: parsed(texts.analysis) as DetailRow["analysis"],
    repaired_geometry: parsed(texts.repaired_geometry),
    origin: parsed(texts.origin),
  };
  const detail = maskDetail(toDetail(whole, failures), rules);
  return JSON.stringify(rules ? maskAnswer(detail, rules) : detail);
}
