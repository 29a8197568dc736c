import { z } from "zod";
import { queryNumber } from "../vocabulary/query-number";
import { bigintIdSchema } from "../db/column-limits";
import { timeBoundSchema } from "../time/filter-bound";

// The audit log's query and answer (GET /api/audit, the /audit page). Client-safe.

const fromTime = timeBoundSchema("from").optional();
const toTime = timeBoundSchema("to").optional();

export const AUDIT_TARGET_TYPES = [
  "dead_letter",
  "replay_batch",
  "user",
  "api_token",
  "alert_rule",
  "export",
  "ledger",
  "source",
  "setting",
] as const;

export const AuditQuerySchema = z
  .object({
    /** an action (`dead_letter.approved`), or every action under a prefix ending with "." (`replay_batch.`) */
    action: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[a-z_.]+$/, "must be an action such as dead_letter.approved, or a prefix such as replay_batch.")
      .optional(),
    /** the actor's e-mail (case-insensitive) */
    actor: z.string().trim().min(1).max(320).optional(),
    targetType: z.enum(AUDIT_TARGET_TYPES).optional(),
    targetId: z.string().trim().min(1).max(100).optional(),
    from: fromTime.optional(),
    to: toTime.optional(),
    /** the id of the last event of the previous page (events come newest first) */
    cursor: bigintIdSchema("must be an event id").optional(),
    limit: queryNumber(z.number().int().min(1).max(200).default(50)),
  })
  .check((ctx) => {
    const { from, to } = ctx.value;
    if (from && to && from > to) ctx.issues.push({ code: "custom", path: ["from"], message: "must not be later than to", input: from });
  });
export type AuditQuery = z.output<typeof AuditQuerySchema>;

export interface AuditLogEvent {
  id: string;
  at: string;
  actor: { id: string | null; email: string | null; role: string | null };
  action: string;
  target: { type: string; id: string | null };
  reason: string | null;
  before: unknown;
  after: unknown;
  diff: unknown;
  requestId: string | null;
  hash: string;
  prevHash: string;
}

export interface AuditLogPage {
  events: AuditLogEvent[];
  /** pass as `cursor` for the next (older) page; null at the end */
  nextCursor: string | null;
  /** payload values matching the masking rules are shown masked */
  masked: boolean;
}
