import { z } from "zod";
import { queryNumber } from "../vocabulary/query-number";
import { BboxSchema, ListFilterSchema } from "../dead-letters/filters";
import { hasUrlCredentials } from "../net/outbound";
import type { DeadLetterKind, DeadLetterStatus, FailureClass } from "@/lib/vocabulary/record";

// Request shapes of the forensics API (lookup, timeline, quarantine, export, reveal, alerts) and the shapes
// they answer. Client-safe: pages, hooks, routes and the CLI share them.

const fromTime = ListFilterSchema.shape.from;
const toTime = ListFilterSchema.shape.to;

const PointSchema = z.preprocess(
  (v) => (typeof v === "string" ? v.split(",").map((n) => (n.trim() === "" ? NaN : Number(n))) : v),
  z
    .tuple([z.number().finite(), z.number().finite()], { error: "must be lon,lat" })
    .refine(([lon, lat]) => lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90, "out of range for EPSG:4326"),
);

/** "1", "true" → true; the query-string spelling of a flag. */
export const FlagSchema = z.preprocess((v) => (v === "1" || v === "true" ? true : v === "0" || v === "false" ? false : v), z.boolean());

export const LookupQuerySchema = z
  .object({
    /**
     * idempotency key, event hash (full or ≥ 8 hex characters), event_id, device_id, source message id, a feature's
     * id, a broker message id or position. A term holding a card number needs dead_letters:unmask (access.ts).
     */
    q: z.string().trim().min(1).max(300).optional(),
    bbox: BboxSchema.optional(),
    near: PointSchema.optional(),
    radiusKm: queryNumber(z.number().positive().max(1000).default(1)),
    from: fromTime,
    to: toTime,
    limit: queryNumber(z.number().int().min(1).max(200).default(50)),
  })
  .refine((v) => v.q !== undefined || v.bbox !== undefined || v.near !== undefined, {
    path: ["q"],
    message: "give a key to look up (q), a place (bbox or near) or both",
  })
  .refine((v) => !(v.bbox && v.near), { path: ["near"], message: "give either bbox or near, not both" })
  .refine((v) => !(v.from && v.to && v.from > v.to), { path: ["from"], message: "must not be later than to" });
export type LookupQuery = z.output<typeof LookupQuerySchema>;

export const MATCH_FIELDS = [
  "idempotency_key",
  "event_hash_prefix",
  "event_id",
  "device_id",
  "source_message_id",
  "feature_id",
  "broker_message_id",
  "broker_position",
  "place",
  "record_id",
] as const;
export type MatchField = (typeof MATCH_FIELDS)[number];

export interface LookupRecord {
  id: string;
  kind: DeadLetterKind;
  source: string;
  idempotencyKey: string | null;
  eventId: string | null;
  deviceId: string | null;
  sourceMessageId: string | null;
  reason: string;
  reasonGroup: string;
  failureClass: FailureClass;
  status: DeadLetterStatus;
  observedAt: string;
  firstSeenAt: string;
  replayCount: number;
  failureCount: number;
  matchedOn: MatchField[];
  /** found in the archive (settled records past the archive horizon): no payload, no map position, no record page */
  archived: boolean;
  /** spatial: the centre of the record's geometry [lon, lat] (the lookup map plots it); null without one */
  position: [number, number] | null;
}

export interface LedgerHit {
  idempotencyKey: string;
  kind: DeadLetterKind | null;
  entityKey: string | null;
  observedAt: string | null;
  appliedAt: string;
  batchId: string | null;
  itemId: string | null;
  deadLetterId: string | null;
  origin: string;
}

export interface LookupResult {
  records: LookupRecord[];
  /** settled keys: what was applied (or imported as applied), even for records no longer in the DLQ */
  ledger: LedgerHit[];
  /** more records matched than `limit` (or than a place search reads): narrow the query */
  truncated: boolean;
}

/** `unmask=1`: card data in clear, for holders of dead_letters:unmask (audited) */
export const UnmaskQuerySchema = z.object({ unmask: FlagSchema.default(false) });
export const TimelineQuerySchema = UnmaskQuerySchema.extend({
  /** `download=1`: the same JSON as a file (content-disposition: attachment) */
  download: FlagSchema.default(false),
});

export const TIMELINE_KINDS = [
  "capture",
  "failure",
  "edit",
  "decision",
  "repair",
  "replay",
  "settlement",
  "batch",
  "purge",
  "retention",
  "reveal",
  "note",
  "other",
] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

export interface TimelineEvent {
  /** audit event id, or "ledger:<key>" for the settlement read from the ledger */
  id: string;
  at: string;
  kind: TimelineKind;
  action: string;
  summary: string;
  actor: { id: string | null; email: string | null; role: string | null };
  reason: string | null;
  before: unknown;
  after: unknown;
  diff: unknown;
  /** the chain hash: the event is verifiable with `redrive audit verify` */
  hash: string | null;
}

export interface Timeline {
  deadLetterId: string;
  idempotencyKey: string | null;
  kind: DeadLetterKind;
  status: string;
  /** the record left dead_letter past the archive horizon (lib/ops/archive.ts): when; null for a live record */
  archivedAt: string | null;
  masked: boolean;
  events: TimelineEvent[];
}

export const EXPORT_FORMATS = ["ndjson", "csv", "geojson"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const ExportQuerySchema = ListFilterSchema.extend({
  format: z.enum(EXPORT_FORMATS).default("ndjson"),
  unmask: FlagSchema.default(false),
  /** CSV for Excel: a UTF-8 byte-order mark first, without which Excel reads the file as the local code page */
  excel: FlagSchema.default(false),
  /** the list's order (newest observation first by default), so the file reads as the list did */
  order: z.enum(["asc", "desc"]).default("desc"),
}).check((ctx) => {
  if (ctx.value.excel && ctx.value.format !== "csv")
    ctx.issues.push({ code: "custom", path: ["excel"], message: "applies to format=csv only", input: ctx.value.excel });
});

export const RevealBodySchema = z.strictObject({
  /** JSON pointer into the record: "/payload/card_pan" or "/rawEnvelope/raw_payload/card_pan" */
  path: z
    .string()
    .regex(/^\/(payload|rawEnvelope)(\/.*)?$/, 'must be a JSON pointer starting with "/payload" or "/rawEnvelope"')
    .max(1000),
});

export const ALERT_METRICS = ["poison_growth", "dlq_size", "oldest_age", "source_down", "rule_canary", "rule_refailure"] as const;
/** Alerts about one triage rule at a time, each event naming it (lib/rules/rule-alerts.ts, not the evaluation round). */
export const RULE_ALERT_METRICS: readonly AlertMetric[] = ["rule_canary", "rule_refailure"];
export type AlertMetric = (typeof ALERT_METRICS)[number];

const alertRuleFields = {
  name: z.string().trim().min(1).max(200),
  threshold: z.number().finite().min(0),
  windowMinutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60),
  enabled: z.boolean(),
  webhookUrl: z
    .url({ protocol: /^https?$/ })
    .max(2000, "must be at most 2,000 characters")
    .refine((u) => !hasUrlCredentials(u), {
      error: "must not contain a user name or password (fetch refuses them; put a token in the path or query)",
    })
    .nullable(),
};
const alertRuleId = z.string().regex(/^[a-z0-9-]{1,60}$/, "must be an alert rule id (a-z, 0-9, -; at most 60)");

export const AlertRuleUpdateSchema = z.strictObject({
  name: alertRuleFields.name.optional(),
  threshold: alertRuleFields.threshold.optional(),
  windowMinutes: alertRuleFields.windowMinutes.optional(),
  enabled: alertRuleFields.enabled.optional(),
  webhookUrl: alertRuleFields.webhookUrl.optional(),
});
export type AlertRuleUpdate = z.output<typeof AlertRuleUpdateSchema>;
export const AlertRuleParamsSchema = z.object({ id: alertRuleId });

/**
 * POST /api/alerts: a new rule, for a team (`teamId`; a member of one team may leave it out) or company-wide
 * (`teamId: null`, unscoped supervisors only). Copying a company-wide default for a team is this body with the
 * default's metric, threshold and window.
 */
export const AlertRuleCreateSchema = z.strictObject({
  id: alertRuleId.optional(),
  teamId: z
    .string()
    .regex(/^[1-9][0-9]{0,18}$/, "must be a team id")
    .nullable()
    .optional(),
  name: alertRuleFields.name,
  metric: z
    .enum(ALERT_METRICS)
    .refine((m) => !RULE_ALERT_METRICS.includes(m), "is a triage rule's alert: it exists once, raised for every rule, with no copies"),
  threshold: alertRuleFields.threshold,
  windowMinutes: alertRuleFields.windowMinutes.default(60),
  enabled: alertRuleFields.enabled.default(true),
  webhookUrl: alertRuleFields.webhookUrl.optional(),
});
export type AlertRuleCreate = z.output<typeof AlertRuleCreateSchema>;
