import { z } from "zod";
import { MAX_REASON_LENGTH, TRIAGE_ACTIONS } from "../decisions";
import { RepairMethodSchema, RepairPolicySchema } from "../../vocabulary/record";
import { JsonValueSchema } from "./record-id";
import { ServedDeadLetterDetailSchema } from "./detail";

// POST /api/dead-letters/{id}/actions: one decision on one record (approve, edit, quarantine, reopen), and the
// 409 that answers a decision made on a version someone else has changed.

export const ReasonSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .trim()
  .min(1, "must not be blank")
  .max(MAX_REASON_LENGTH, `must be at most ${MAX_REASON_LENGTH.toLocaleString("en")} characters`); // its own message: the type's would say "must be a string"
const VersionSchema = z.number().int().min(1).describe("the record's version as last read (optimistic concurrency)");

/** The repair an approval pins (spatial records). Omitted: the source's default, as the record was analysed. */
export const ApproveRepairSchema = z
  .strictObject({
    method: RepairMethodSchema,
    policy: RepairPolicySchema,
    digest: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex")
      .optional()
      .describe("the digest of the previewed geometry (GET …/repair-preview); a different one now answers 409"),
    acknowledged: z
      .array(z.string().max(500))
      .max(10)
      .optional()
      .describe("the preview's warnings the analyst acknowledged (a large area or type change); recorded with the approval"),
  })
  .meta({ id: "ApproveRepair" });
export type ApproveRepair = z.infer<typeof ApproveRepairSchema>;

export const ActionBodySchema = z
  .discriminatedUnion(
    "action",
    [
      z.strictObject({
        action: z.literal("approve"),
        version: VersionSchema,
        reason: ReasonSchema.optional(),
        repair: ApproveRepairSchema.optional(),
      }),
      z.strictObject({ action: z.literal("quarantine"), version: VersionSchema, reason: ReasonSchema }),
      z.strictObject({ action: z.literal("reopen"), version: VersionSchema, reason: ReasonSchema.optional() }),
      z.strictObject({
        action: z.literal("edit"),
        version: VersionSchema,
        payload: JsonValueSchema,
        /** the edit's note; required with overrideIdentity (the override's justification) */
        reason: ReasonSchema.optional(),
        overrideIdentity: z
          .boolean()
          .optional()
          .describe(
            "AFC: allow changing identity fields (supervisors only; needs reason). Omitted: a supervisor's edit with a reason overrides; false: never",
          ),
      }),
    ],
    { error: `must be one of ${TRIAGE_ACTIONS.join(", ")}` },
  )
  .refine((b) => !(b.action === "edit" && b.overrideIdentity && !b.reason), {
    path: ["reason"],
    message: "is required when overriding identity fields",
  })
  .meta({ id: "ActionBody" });
export type ActionBody = z.infer<typeof ActionBodySchema>;

export const ChangedBySchema = z.object({
  email: z.string().nullable(),
  role: z.string().nullable(),
  action: z.string().describe("the audit action, e.g. dead_letter.approved"),
  at: z.string(),
});
export type ChangedBy = z.infer<typeof ChangedBySchema>;

export const ConflictBodySchema = z
  .object({
    error: z.looseObject({
      code: z.literal("conflict"),
      message: z.string(),
      current: ServedDeadLetterDetailSchema.optional().describe("the record as it is now, when it changed under you"),
      changedBy: ChangedBySchema.nullable().optional().describe("who made the record's latest audited change"),
    }),
  })
  .meta({ id: "Conflict" });
