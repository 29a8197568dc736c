import { z } from "zod";
import { queryNumber } from "../../vocabulary/query-number";
import type { MentionedUser } from "./notes";

// Request and response shapes of the failure-group API (GET /api/groups, GET/PATCH /api/groups/{id}), shared by
// the route handlers, the CLI, the client hooks and the OpenAPI document. Client-safe: no server imports.

export const GROUP_STATUSES = ["open", "acknowledged", "resolved", "ignored"] as const;
export type GroupStatus = (typeof GROUP_STATUSES)[number];
export const GroupStatusSchema = z.enum(GROUP_STATUSES);

export const GROUP_SORTS = ["new", "size", "age"] as const;
export type GroupSort = (typeof GROUP_SORTS)[number];

/** failure_group_id(): 16 base64url characters. */
export const GroupIdSchema = z.string().regex(/^[A-Za-z0-9_-]{16}$/, "must be a group id (16 characters: letters, digits, - and _)");
export const GroupIdParamsSchema = z.object({ id: GroupIdSchema });

export const GroupListQuerySchema = z.object({
  /** new: the group that received a record most recently first · size: most records first · age: oldest first */
  sort: z.enum(GROUP_SORTS).default("new"),
  status: z.preprocess((v) => (typeof v === "string" ? v.split(",").filter(Boolean) : v), z.array(GroupStatusSchema).min(1)).optional(),
  source: z.string().min(1).max(200).optional(),
  limit: queryNumber(z.number().int().min(1).max(1000).default(200)),
});
export type GroupListQuery = z.infer<typeof GroupListQuerySchema>;

export const MAX_NOTE_LENGTH = 4000;
export const MAX_RESOLUTION_LENGTH = 2000;

const text = (max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, "must not be blank")
    .max(max, `must be at most ${max.toLocaleString("en")} characters`);

export const ResolutionSchema = z.strictObject({
  reason: text(MAX_RESOLUTION_LENGTH).describe('why the group is resolved ("fixed upstream in release 4.2")'),
  link: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .max(2000)
    .optional()
    .describe("a ticket, pull request or release note"),
});

export const GroupPatchSchema = z
  .strictObject({
    status: GroupStatusSchema.optional(),
    /** a user id; null unassigns */
    owner: z.string().min(1).max(200).nullable().optional(),
    /** with status "resolved": why (required then) */
    resolution: ResolutionSchema.optional(),
    /** a note appended to the group's thread */
    note: text(MAX_NOTE_LENGTH).optional(),
    /** the group's version as last read: a different one now answers 409 (optional: notes never conflict) */
    version: z.number().int().min(0).optional(),
  })
  .check((ctx) => {
    const v = ctx.value;
    if (Object.values(v).every((x) => x === undefined) || (v.version !== undefined && Object.keys(v).length === 1)) {
      ctx.issues.push({ code: "custom", path: [], message: "names nothing to change: send status, owner, resolution or note", input: v });
    }
    if (v.status === "resolved" && !v.resolution) {
      ctx.issues.push({ code: "custom", path: ["resolution"], message: "is required to resolve: say why ({reason, link?})", input: v });
    }
    if (v.resolution && v.status !== "resolved") {
      ctx.issues.push({ code: "custom", path: ["resolution"], message: 'goes with status "resolved"', input: v });
    }
  });
export type GroupPatch = z.infer<typeof GroupPatchSchema>;

export interface TrendPoint {
  day: string;
  count: number;
}

export interface FailureGroupView {
  id: string;
  source: string;
  reasonGroup: string;
  status: GroupStatus;
  owner: { id: string; email: string; name: string } | null;
  /** reopened by new arrivals after it was resolved (cleared by the next status change) */
  regression: boolean;
  regressedAt: string | null;
  resolution: { reason: string; link: string | null; at: string | null } | null;
  /** when Redrive stored the group's first and latest record (null: not tracked, e.g. a reason changed by a replay) */
  firstSeenAt: string | null;
  lastSeenAt: string | null;
  /** records stored in the group, whatever their status */
  count: number;
  /** of them still waiting for someone: pending, approved or quarantined */
  unresolved: number;
  /** records per UTC day of observation, the last 14 days */
  trend: TrendPoint[];
  version: number;
}

export interface GroupNote {
  id: string;
  authorEmail: string;
  body: string;
  at: string;
  /** the users its @handles named when it was written (as a record's note) */
  mentions: MentionedUser[];
}

export interface FailureGroupDetail extends FailureGroupView {
  notes: GroupNote[];
  /** who resolved it (the e-mail of the audited change that set its resolution); null when not resolved or unknown */
  resolvedBy: string | null;
}
