import { z } from "zod";
import { bigintIdSchema } from "../../db/column-limits";
import { CLASSES, KINDS, ListFilterSchema, STATUSES } from "../filters";
import { IdSchema } from "./record-id";

// GET /api/dead-letters and /api/dead-letters/arrivals: a page of the list, and what arrived since it loaded.

export const DeadLetterSummarySchema = z
  .object({
    id: IdSchema,
    kind: z.enum(KINDS),
    source: z.string(),
    idempotencyKey: z.string().nullable(),
    eventId: z.string().nullable(),
    deviceId: z.string().nullable(),
    reason: z.string(),
    reasonGroup: z.string(),
    failureClass: z.enum(CLASSES),
    classReason: z.string().nullable(),
    status: z.enum(STATUSES),
    observedAt: z.string(),
    replayCount: z.number().int(),
    failureCount: z.number().int(),
    version: z.number().int(),
    outcome: z.string().nullable(),
  })
  .meta({ id: "DeadLetterSummary" });

export const ListPageSchema = z
  .object({ items: z.array(DeadLetterSummarySchema), nextCursor: z.string().nullable() })
  .meta({ id: "ListPage" });

export type DeadLetterSummary = z.infer<typeof DeadLetterSummarySchema>;
export type ListPage = z.infer<typeof ListPageSchema>;

/** GET /api/dead-letters/arrivals: the list's filter, and the watermark its page was loaded at. */
export const ArrivalsQuerySchema = ListFilterSchema.extend({
  after: bigintIdSchema("must be a watermark from an earlier answer (digits)")
    .optional()
    .describe("the watermark of the list's first load; omitted: only the current watermark is answered"),
});

export const ArrivalsSchema = z
  .object({
    watermark: z.string().describe("the newest record's id now: send it as `after` to count what arrives from here"),
    count: z.number().int().describe("records matching the filter that arrived after `after`, at most `cap`"),
    cap: z.number().int().describe("counting stops here; `capped` says it did"),
    capped: z.boolean(),
  })
  .meta({ id: "Arrivals" });
export type Arrivals = z.infer<typeof ArrivalsSchema>;
