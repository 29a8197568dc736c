import { z } from "zod";
import { bigintIdSchema } from "../db/column-limits";
import { searchText } from "../masking/searchable";
import { SinkTypeNameSchema } from "../vocabulary/plug-types";
import { DeadLetterKindSchema, FailureClassSchema, RepairMethodSchema, RepairPolicySchema } from "../vocabulary/record";

// Triage rules' request and response shapes (issue #44): the routes parse with them, the CLI and the /rules page
// type with them, OpenAPI documents them. Client-safe: nothing here reaches the database.

/** A quarantine reason's limit, as a triage decision's (lib/dead-letters/decisions.ts, which checks it again). */
const MAX_REASON_LENGTH = 1000;

const text = (max: number) => z.string().trim().min(1, "must not be blank").max(max);

/** What the rule's repair must do to a spatial record's geometry for the rule to decide it. */
export const RuleRepairMatchSchema = z.strictObject({
  /** the repair to judge (default: the source's, as ingest analysed the record) */
  method: RepairMethodSchema.optional(),
  policy: RepairPolicySchema.optional(),
  /** the repair keeps the geometry type */
  sameType: z.boolean().optional(),
  /** the largest relative area change allowed (0.01: 1%), either way */
  maxAreaChange: z.number().min(0).max(10).optional(),
  /** the most parts the repair may drop */
  maxDroppedParts: z.number().int().min(0).max(1_000_000).optional(),
});
export type RuleRepairMatch = z.infer<typeof RuleRepairMatchSchema>;

/**
 * Which records a rule looks at. `origin` and `reason` mean what the list's filter parameters of those names mean:
 * the broker source a record was pulled from, and the reason group (as the facets group reasons).
 */
export const RuleMatchSchema = z
  .strictObject({
    kind: DeadLetterKindSchema.optional(),
    // A rule's counts and samples answer for what its match finds, so the match refuses a card number as the
    // list's filters do: a dry run must not confirm a card its reader is shown masked.
    source: searchText(text(200)).optional(),
    origin: searchText(text(64)).optional(),
    reason: searchText(text(1000)).optional(),
    class: FailureClassSchema.optional(),
    /** AFC: the tap schema's issues (`field` or `field: message`); every issue of the tap must be among them */
    afcIssues: z
      .array(searchText(text(300)))
      .min(1)
      .max(50)
      .optional(),
    repair: RuleRepairMatchSchema.optional(),
  })
  .check((ctx) => {
    const m = ctx.value;
    if (Object.values(m).every((v) => v === undefined)) {
      ctx.issues.push({ code: "custom", message: "must narrow something: a rule matching every record is a bulk decision", input: m });
    }
    if (m.repair && m.afcIssues) {
      ctx.issues.push({ code: "custom", path: ["repair"], message: "is for spatial records, afcIssues for AFC ones: not both", input: m });
    }
    if (m.repair && m.kind === "afc") ctx.issues.push({ code: "custom", path: ["repair"], message: "is for spatial records", input: m });
    if (m.afcIssues && m.kind === "spatial")
      ctx.issues.push({ code: "custom", path: ["afcIssues"], message: "is for AFC records", input: m });
  });
export type RuleMatch = z.infer<typeof RuleMatchSchema>;

export const RuleActionSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("approve") }),
  z.strictObject({ type: z.literal("quarantine"), reason: text(MAX_REASON_LENGTH) }),
  z.strictObject({ type: z.literal("leave") }),
]);
export type RuleAction = z.infer<typeof RuleActionSchema>;

/**
 * A sink as a rule names it: its type alone ("ledger", "origin") or a sink's configuration ({type: "http", url}).
 * Its type and fields are the sink registry's (lib/replay/sinks/registry.ts SinkSchema, which this module cannot
 * import: lib/vocabulary/plug-types.ts): the standing replay parses them (lib/replay/batch/standing-rules.ts) before
 * the version is stored, answering 422 on `replay.sink.<field>`, and OpenAPI lists the registered types.
 */
export const RuleSinkSchema = z.preprocess((v) => (typeof v === "string" ? { type: v } : v), z.looseObject({ type: SinkTypeNameSchema }));

/**
 * A standing replay: the records the rule approves flow into one paced batch to `sink`, approved by the rule
 * version's own approval. `canary`: once the first `count` items have an answer, a failure share above
 * `maxFailureRate` pauses it.
 */
export const RuleReplaySchema = z.strictObject({
  sink: RuleSinkSchema,
  ratePerSecond: z.number().positive().max(10_000),
  canary: z
    .strictObject({ count: z.number().int().min(1).max(10_000), maxFailureRate: z.number().min(0).max(1) })
    .optional()
    .describe("the first `count` items answered; a failure share above maxFailureRate pauses the flow and raises an alert"),
});
export type RuleReplay = z.output<typeof RuleReplaySchema>;

/** A standing replay as readers see it: the sink without its secrets, and in words (its detail, as a batch's page says it). */
export interface RuleReplayView {
  sink: { type: string } & Record<string, unknown>;
  sinkText: string;
  ratePerSecond: number;
  canary?: { count: number; maxFailureRate: number };
}

/** The flow of the rule's standing replay (the batch of the active version, else of the latest one that had one). */
export interface StandingReplayView {
  batchId: string;
  version: number;
  /** the batch's status; `open`: records the rule approves are still appended (its version is the active one) */
  status: string;
  open: boolean;
  statusReason: string | null;
  canary: { count: number; maxFailureRate: number; state: "watching" | "passed" | "tripped" } | null;
}

/**
 * What became of the rule's records in its standing replays, by the state of their replay items now: every item
 * that joined is in exactly one of waiting, sending, retrying, applied, duplicate, failed, dropped, cancelled.
 */
export interface RuleReplayStats {
  /** items that ever joined the rule's standing batches */
  joined: number;
  /** the same as `joined` (its older name) */
  queued: number;
  /** not sent yet (or released back to wait) */
  waiting: number;
  /** in a worker's hands now */
  sending: number;
  /** sent, the sink failed, waiting for their next attempt (the canary counts them as failures) */
  retrying: number;
  /** items submitted to the sink at least once (a duplicate absorbed by the dedup ledger was not) */
  sent: number;
  applied: number;
  /** absorbed by the dedup: the sink or the ledger already had the key */
  duplicate: number;
  /** ended failed (attempts exhausted, or poison) */
  failed: number;
  /** refused before sending (the record no longer passes), back to triage */
  dropped: number;
  /** the batch was cancelled before they were sent */
  cancelled: number;
  /** records the rule approved that could not join its flow (no broker source to go back to, no key, not spatial) */
  notReplayable: number;
  /** records the rule decided that failed again after their replay, in the last 7 days */
  failedAfterReplay: number;
}

export const RULE_NAME = /^[a-z0-9][a-z0-9._-]*$/;
const RuleNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(RULE_NAME, "lower-case letters, digits, '.', '_' and '-' (it names the rule in every decision it makes)");

export const CreateRuleBodySchema = z.strictObject({
  name: RuleNameSchema,
  match: RuleMatchSchema,
  action: RuleActionSchema,
  replay: RuleReplaySchema.optional(),
});
export type CreateRuleBody = z.infer<typeof CreateRuleBodySchema>;

/** `{enabled: false}` is the kill switch; `{enabled: true}` asks to enable again; any other change is a new version. */
export const PatchRuleBodySchema = z
  .strictObject({
    enabled: z.boolean().optional(),
    match: RuleMatchSchema.optional(),
    action: RuleActionSchema.optional(),
    replay: RuleReplaySchema.nullable().optional(),
  })
  .check((ctx) => {
    const { enabled, ...change } = ctx.value;
    const changes = Object.values(change).some((v) => v !== undefined);
    if (enabled === undefined && !changes) ctx.issues.push({ code: "custom", message: "changes nothing", input: ctx.value });
    if (enabled !== undefined && changes) {
      ctx.issues.push({
        code: "custom",
        path: ["enabled"],
        message: "goes alone: a kill switch or enabling is not a change of the rule",
        input: ctx.value,
      });
    }
  });
export type PatchRuleBody = z.infer<typeof PatchRuleBodySchema>;

export const ApproveRuleBodySchema = z.strictObject({
  version: z.number().int().min(1).describe("the version the approver reviewed: another one answers 409"),
});

/** The editor's live counts: the draft's match and action instead of the stored version's. */
export const DryRunBodySchema = z.strictObject({
  match: RuleMatchSchema.optional(),
  action: RuleActionSchema.optional(),
  sink: z
    .string()
    .min(1)
    .max(50)
    .nullable()
    .optional()
    .describe(
      "the draft's standing replay sink type (null: none; absent: the latest version's): back to origin counts notReplayableToOrigin",
    ),
});
export type DryRunBody = z.infer<typeof DryRunBodySchema>;

export const ApplyRuleBodySchema = z.strictObject({
  version: z.number().int().min(1).describe("the active version the dry run was made with"),
  expectedCount: z.number().int().min(0).optional().describe("the dry run's `decided`: 409 when the count now differs"),
});

export const RuleIdSchema = bigintIdSchema("must be a rule id (digits)");
export const RuleIdParamsSchema = z.object({ id: RuleIdSchema });
export const RuleJobParamsSchema = z.object({ id: RuleIdSchema, jobId: bigintIdSchema("must be a job id (digits)") });

export const RULE_STATUSES = ["draft", "active", "disabled"] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];

export interface RulePerson {
  id: string | null;
  email: string | null;
}

export interface RuleVersionView {
  version: number;
  match: RuleMatch;
  action: RuleAction;
  replay: RuleReplayView | null;
  draftedBy: RulePerson;
  draftedAt: string;
  approvedBy: RulePerson | null;
  approvedAt: string | null;
}

export interface RuleView {
  id: string;
  name: string;
  status: RuleStatus;
  /** the latest version (the one an approval is for while the rule is a draft) */
  version: number;
  /** the version in force (null: none approved yet, or a newer one waits for approval) */
  activeVersion: number | null;
  match: RuleMatch;
  action: RuleAction;
  replay: RuleReplayView | null;
  draftedBy: RulePerson;
  approvedBy: RulePerson | null;
  createdAt: string;
  updatedAt: string;
  stats: { decidedToday: number; decidedThisWeek: number; lastMatchAt: string | null; replay: RuleReplayStats };
  /** the standing replay's flow, if the rule has had one */
  standing: StandingReplayView | null;
  versions?: RuleVersionView[];
}

/** What a dry run (or an apply) counted. */
export interface RuleCounts {
  /** records the rule would decide (approve / quarantine) or, for `leave`, matches */
  decided: number;
  skipped: number;
  skippedReasons: Record<string, number>;
  samples: { decided: string[]; skipped: { id: string; reason: string }[] };
  /** approvals: how many records change their area by up to each bound (keys "0", "0.001", … "more") */
  areaChanges: Record<string, number>;
  /**
   * A dry run of a rule whose standing replay goes back to origin: of its approvals, those that cannot (counted as
   * a batch back to origin leaves them out or refuses them); null for any other dry run, and for an apply.
   */
  notReplayableToOrigin: { total: number; noBrokerSource: number; refusedDestination: number } | null;
}

export interface RuleJobView extends RuleCounts {
  id: string;
  ruleId: string;
  version: number | null;
  type: "dry_run" | "apply";
  status: "running" | "completed" | "failed";
  processed: number;
  /** candidates when the job started (records of the rule's kind, source, … that are pending) */
  total: number;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** A record decided by a rule, as the detail API, the record page, the timeline and exports show it. */
export const DecidedByRuleSchema = z
  .object({
    rule: z.object({ id: z.string(), name: z.string(), version: z.number().int() }),
    approvers: z.array(z.string()).describe("who drafted and who approved that version"),
  })
  .meta({ id: "DecidedByRule" });
export type DecidedByRule = z.infer<typeof DecidedByRuleSchema>;

/** What a dry run's or an apply's POST answers: the job, finished within the request or still running. */
export const RULE_JOB_RESPONSES = {
  200: { description: "{ job }: the job ended within the request; its counts" },
  202: { description: "{ job }: still running; poll Location (GET /api/rules/{id}/jobs/{jobId})" },
};
