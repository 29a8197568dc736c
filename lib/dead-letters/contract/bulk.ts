import { z } from "zod";
import { bigintIdSchema } from "../../db/column-limits";
import { EMPTY_FILTER_NEEDS_COUNT, FilterBodySchema, isEmptyFilter } from "../filters";
import { IdSchema } from "./record-id";
import { ReasonSchema } from "./decision";

// POST /api/dead-letters/bulk and its jobs: one decision on many records, by ids or by a list filter.

export const BULK_ACTIONS = ["approve", "quarantine", "reopen"] as const;
export const MAX_BULK_IDS = 10_000;

export const BulkBodySchema = z
  .strictObject({
    action: z.enum(BULK_ACTIONS),
    reason: ReasonSchema.optional(),
    // Numbers too, as POST /api/replays takes them (a script's JSON ids are often numbers).
    ids: z
      .array(z.union([IdSchema, z.number().int().positive().max(Number.MAX_SAFE_INTEGER).transform(String)]))
      .min(1)
      .max(MAX_BULK_IDS)
      .optional(),
    filter: FilterBodySchema.optional().describe("every record matching this list filter, applied on the server"),
    expectedCount: z.number().int().min(0).optional().describe("the count the user confirmed; a different count answers 409"),
    dryRun: z
      .boolean()
      .optional()
      .describe("change nothing: count the matching records (exactly) and say how many would be updated and skipped, and why"),
  })
  .refine((b) => (b.ids === undefined) !== (b.filter === undefined), { path: ["ids"], message: "give exactly one of ids and filter" })
  .refine((b) => b.action !== "quarantine" || !!b.reason, { path: ["reason"], message: "is required to quarantine" })
  .refine((b) => !b.filter || !isEmptyFilter(b.filter) || b.expectedCount !== undefined || b.dryRun === true, {
    path: ["filter"],
    message: EMPTY_FILTER_NEEDS_COUNT,
  })
  .meta({ id: "BulkBody" });
export type BulkBody = z.infer<typeof BulkBodySchema>;

export const BulkResultSchema = z
  .object({
    matched: z.number().int().describe("records the selection named"),
    updated: z.number().int(),
    skipped: z.number().int(),
    /** why records were skipped, with counts ("cannot approve a replayed record": 12) */
    skippedReasons: z.record(z.string(), z.number().int()),
    /** updated, but worth a second look, with counts (approve: taps that still fail their schema, which the replay will drop) */
    warnings: z.record(z.string(), z.number().int()),
  })
  .meta({ id: "BulkResult" });
export type BulkResult = z.infer<typeof BulkResultSchema>;

export const BULK_JOB_STATUSES = ["running", "completed", "cancelled", "failed"] as const;

export const BulkJobSchema = z
  .object({
    id: IdSchema,
    status: z.enum(BULK_JOB_STATUSES),
    action: z.enum(BULK_ACTIONS),
    matched: z.number().int().describe("records matching when the job was created (the count confirmed)"),
    processed: z.number().int().describe("records of the selection worked through so far"),
    updated: z.number().int(),
    skipped: z.number().int(),
    skippedReasons: z.record(z.string(), z.number().int()),
    /** updated, but worth a second look, with counts (approve: taps that still fail their schema) */
    warnings: z.record(z.string(), z.number().int()),
    cancelRequested: z.boolean(),
    error: z.string().nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: "BulkJob" });
export type BulkJob = z.infer<typeof BulkJobSchema>;

export const BulkJobAcceptedSchema = z.object({ job: BulkJobSchema }).meta({ id: "BulkJobAccepted" });
export type BulkJobAccepted = z.infer<typeof BulkJobAcceptedSchema>;

export const BulkJobParamsSchema = z.object({ jobId: bigintIdSchema("must be a bulk job id (digits)") });
