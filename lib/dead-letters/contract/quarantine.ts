import { z } from "zod";
import type { DeadLetterKind } from "../../vocabulary/record";
import { EMPTY_FILTER_NEEDS_COUNT, FilterBodySchema, isEmptyFilter } from "../filters";
import { IdSchema } from "./record-id";

// The quarantine: its groups (GET /api/quarantine/groups) and releasing or purging records
// (POST /api/quarantine/release, /purge).

/** Quarantine release/purge: explicit ids or a list filter (applied to quarantined records only). */
export const QuarantineBodySchema = z
  .strictObject({
    ids: z.array(IdSchema).min(1).max(10_000).optional(),
    filter: FilterBodySchema.optional(),
    reason: z.string().trim().min(1, "must not be blank").max(1000),
    /** with a filter: the number of quarantined records the user confirmed; a different count answers 409 */
    expectedCount: z.number().int().min(0).optional(),
  })
  .refine((b) => (b.ids === undefined) !== (b.filter === undefined), { path: ["ids"], message: "give exactly one of ids and filter" })
  .refine((b) => !b.filter || !isEmptyFilter(b.filter) || b.expectedCount !== undefined, {
    path: ["filter"],
    message: EMPTY_FILTER_NEEDS_COUNT,
  });
export type QuarantineBody = z.output<typeof QuarantineBodySchema>;

export interface QuarantineGroup {
  reasonGroup: string;
  kind: DeadLetterKind;
  count: number;
  /** records per UTC day of observation, oldest first, the last 14 days */
  trend: { day: string; count: number }[];
  /**
   * Why people quarantined its records (the reason given with the decision), most frequent first, at most
   * QUARANTINE_REASONS_SHOWN; records quarantined automatically (poison) have none.
   */
  reasons?: { reason: string; count: number }[];
}
