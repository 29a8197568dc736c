import { z } from "zod";
import { queryNumber } from "../../vocabulary/query-number";
import { DeadLetterKindSchema, DeadLetterStatusSchema, FailureClassSchema } from "../../vocabulary/record";
import { IdSchema } from "./record-id";

// A producer's view of what it sent (GET /api/producer/records): its records' outcome, never their payloads.
// Shared by the route, the OpenAPI description and the page.

export const OwnRecordsQuerySchema = z.object({
  status: DeadLetterStatusSchema.optional(),
  limit: queryNumber(z.number().int().min(1).max(200).default(50)),
  cursor: z.string().max(200).optional(),
});
export type OwnRecordsQuery = z.infer<typeof OwnRecordsQuerySchema>;

export const OwnRecordSchema = z.object({
  id: z.string(),
  kind: DeadLetterKindSchema,
  idempotencyKey: z.string().nullable(),
  status: DeadLetterStatusSchema,
  failureClass: FailureClassSchema,
  reason: z.string(),
  failureCount: z.number().int(),
  /** when the producer says the event happened (to the microsecond) */
  observedAt: z.string(),
  /** when Redrive received it first */
  receivedAt: z.string(),
});
export type OwnRecord = z.infer<typeof OwnRecordSchema>;

const CountSchema = z.object({ value: z.string(), count: z.number().int() });

export const OwnRecordsPageSchema = z.object({
  items: z.array(OwnRecordSchema),
  nextCursor: z.string().nullable(),
  /** over all the caller's records (not only this page): by status and by reason group (top 20) */
  counts: z.object({ total: z.number().int(), status: z.array(CountSchema), reason: z.array(CountSchema) }),
});
export type OwnRecordsPage = z.infer<typeof OwnRecordsPageSchema>;

export const OwnRecordParamsSchema = z.object({ id: IdSchema });
