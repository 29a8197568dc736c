import { z } from "zod";
import { AuditQuerySchema } from "../audit/log-schema";
import { CreateTokenBody, CreateUserBody, IdParams, ListTokensQuery, PatchUserBody } from "../auth/account-schemas";
import { SsoSettingsBody } from "../auth/sso-schemas";
import { ListFilterSchema, ListQuerySchema } from "../dead-letters/filters";
import {
  ActionBodySchema,
  BulkBodySchema,
  BulkJobAcceptedSchema,
  BulkJobParamsSchema,
  BulkJobSchema,
  BulkResultSchema,
  ConflictBodySchema,
  ServedDeadLetterDetailSchema,
  FacetsSchema,
  ExtentSchema,
  ArrivalsQuerySchema,
  ArrivalsSchema,
  IdParamsSchema,
  ListPageSchema,
  MapPointsQuerySchema,
  MapPointsSchema,
  RepairPreviewQuerySchema,
  RepairPreviewSchema,
} from "../dead-letters/record-schemas";
import {
  AlertRuleParamsSchema,
  AlertRuleUpdateSchema,
  ExportQuerySchema,
  LookupQuerySchema,
  RevealBodySchema,
  TimelineQuerySchema,
} from "../forensics/forensics-schemas";
import { QuarantineBodySchema } from "../dead-letters/record-schemas";
import { OwnRecordParamsSchema, OwnRecordSchema, OwnRecordsPageSchema, OwnRecordsQuerySchema } from "../dead-letters/own-records-schemas";
import { BatchIdParams, CreateBatchBody, ItemsQuery, ListBatchesQuery, RateQuery, SingleApproverBody } from "../replay/batch/batch-schemas";
import { CreateSourceBody, PatchSourceBody, PullBody, SourceNameParams } from "../sources/source-schemas";
import { GroupIdParamsSchema, GroupListQuerySchema, GroupPatchSchema } from "../dead-letters/groups/group-schemas";
import { ErrorBodySchema, buildOpenApi, type Operation } from "./openapi";
import { NOTES_AND_VIEWS } from "./openapi-notes-views";
import { RULES } from "./openapi-rules";

// Every route under app/api, with the schemas its handler parses. tests/integration/openapi.test.ts fails when
// a route file or method is missing here or its permission differs from the handler's: add new routes here.

const ok = (description: string, schema?: z.ZodType) => ({ 200: { description, ...(schema ? { schema } : {}) } });
const conflict = {
  409: { description: "The record changed under you or its status forbids this: `current` is the record now", schema: ConflictBodySchema },
};
const notFound = { 404: { description: "No such record" } };
const untyped = (description: string) => z.looseObject({}).describe(description);

const DEAD_LETTERS: Operation[] = [
  {
    method: "get",
    path: "/api/dead-letters",
    tag: "dead letters",
    summary: "One keyset page of the list, filtered",
    description:
      "Newest observation first (order=asc for oldest). Pass nextCursor back as cursor for the next page. " +
      "Card numbers in reasons are masked for every reader (read one record with unmask=1 for clear text).",
    access: { permission: "dead_letters:read" },
    query: ListQuerySchema,
    responses: ok("A page", ListPageSchema),
  },
  {
    method: "post",
    path: "/api/dead-letters",
    tag: "ingest",
    summary: "Ingest dead letters (one envelope, a JSON array or NDJSON)",
    access: { permission: "dead_letters:ingest" },
    body: {
      contentTypes: ["application/json", "application/x-ndjson"],
      description: "Spatial or AFC envelopes; streamed, results in input order",
    },
    responses: {
      ...ok("Per-record results: created, duplicate (without the id when another sender stored the record) or rejected with field errors"),
      415: { description: "Neither JSON nor NDJSON", schema: ErrorBodySchema },
    },
  },
  {
    method: "get",
    path: "/api/dead-letters/{id}",
    tag: "dead letters",
    summary: "One record: raw envelope, payload, analysis, failure history",
    access: { permission: "dead_letters:read" },
    params: IdParamsSchema,
    responses: { ...ok("The record", ServedDeadLetterDetailSchema), ...notFound },
  },
  {
    method: "get",
    path: "/api/dead-letters/{id}/repair-preview",
    tag: "dead letters",
    summary: "What approving a spatial record with a repair (method, policy) would replay",
    description:
      "Default: the record's source's method and policy. Send the answer's method, policy and digest with the approval (repair) to pin exactly this result: a replay sends nothing else.",
    access: { permission: "dead_letters:read" },
    params: IdParamsSchema,
    query: RepairPreviewQuerySchema,
    responses: { ...ok("The repair's analysis, geometry, digest and warnings", RepairPreviewSchema), ...notFound },
  },
  {
    method: "post",
    path: "/api/dead-letters/{id}/actions",
    tag: "triage",
    summary: "Approve, edit, quarantine or reopen one record",
    description:
      "Optimistic concurrency: send the version you read. Quarantine needs a reason. Poison records cannot be approved until edited into validity. " +
      "AFC identity fields (event_id, device_id, tap_timestamp, fare_amount_cents) may only change when a supervisor overrides with a reason (an edit by a supervisor with a reason is the override, unless overrideIdentity is false); the stored key never changes.",
    access: { permission: "dead_letters:triage" },
    params: IdParamsSchema,
    body: ActionBodySchema,
    responses: { ...ok("The record after the decision", ServedDeadLetterDetailSchema), ...notFound, ...conflict },
  },
  {
    method: "post",
    path: "/api/dead-letters/bulk",
    tag: "triage",
    summary: "One decision on many records (ids, or everything matching a filter)",
    description:
      "Applied on the server in pages of 500 rows locked in id order; records the state machine refuses are skipped and counted by reason. expectedCount guards against the selection having changed since it was confirmed (409 with `matched`). " +
      "Ids (at most 10,000) and dry runs are answered 200 with the result. A filter, which may match any number of records, is answered 202 with a job at once (Location: its progress URL); the server applies it page by page after the response — poll GET /api/dead-letters/bulk/{jobId}.",
    access: { permission: "dead_letters:triage" },
    body: BulkBodySchema,
    responses: {
      ...ok("Ids or a dry run: what was done (or would match)", BulkResultSchema),
      202: { description: "A filter: the job, accepted and running", schema: BulkJobAcceptedSchema },
      409: { description: "The number of matching records changed: confirm again", schema: ConflictBodySchema },
    },
  },
  {
    method: "get",
    path: "/api/dead-letters/bulk/{jobId}",
    tag: "triage",
    summary: "A bulk job's progress",
    description:
      "processed of matched, updated, skipped by reason; status running → completed | cancelled | failed. Progress is committed with each page's changes. A job whose runner stopped reporting for 30 s is resumed by this poll.",
    access: { permission: "dead_letters:triage" },
    params: BulkJobParamsSchema,
    responses: { ...ok("The job", BulkJobSchema), 404: { description: "No such job" } },
  },
  {
    method: "post",
    path: "/api/dead-letters/bulk/{jobId}/cancel",
    tag: "triage",
    summary: "Stop a bulk job after its current page",
    description: "Pages already applied stay applied (each was its own transaction); the job ends `cancelled` with its counts.",
    access: { permission: "dead_letters:triage" },
    params: BulkJobParamsSchema,
    responses: {
      ...ok("The job, cancel requested", BulkJobSchema),
      404: { description: "No such job" },
      409: { description: "The job already ended" },
    },
  },
  {
    method: "get",
    path: "/api/dead-letters/facets",
    tag: "dead letters",
    summary: "Counts by kind, status, class, source and reason group",
    description:
      "Each facet is counted with the other facets' selections applied, not its own. `exact` is false when a very large viewport or search was estimated from a sample.",
    access: { permission: "dead_letters:read" },
    query: ListFilterSchema,
    responses: ok("Facet counts", FacetsSchema),
  },
  {
    method: "get",
    path: "/api/dead-letters/arrivals",
    tag: "dead letters",
    summary: 'How many matching records arrived since a watermark: the list\'s "N new" banner',
    description:
      "Without `after`, only the current watermark. With it, the records matching the filters whose id is above it (ids follow insertion), counted up to `cap`: cheap whatever the filter matches in all.",
    access: { permission: "dead_letters:read" },
    query: ArrivalsQuerySchema,
    responses: ok("The count since the watermark", ArrivalsSchema),
  },
  {
    method: "get",
    path: "/api/dead-letters/extent",
    tag: "dead letters",
    summary: "Where the matching spatial records are: the box the list map fits to",
    description: "The list's filters apart from bbox (the map's own view).",
    access: { permission: "dead_letters:read" },
    query: ListFilterSchema,
    responses: ok("The extent", ExtentSchema),
  },
  {
    method: "get",
    path: "/api/dead-letters/map-points",
    tag: "dead letters",
    summary: "Record positions for the map, or grid cells when many",
    description:
      "bbox is the map's view. Up to 2,000 records come as points with their id; more as grid cells (count n at the cells' mean position) sized for the zoom.",
    access: { permission: "dead_letters:read" },
    query: MapPointsQuerySchema,
    responses: ok("A GeoJSON FeatureCollection", MapPointsSchema),
  },
  {
    method: "post",
    path: "/api/afc/taps",
    tag: "ingest",
    summary: "The AFC capture boundary: validate taps, capture the failing ones",
    access: { permission: "dead_letters:ingest" },
    query: z.object({ source: z.string().min(1).max(200).optional() }),
    body: {
      contentTypes: ["application/json", "application/x-ndjson"],
      description:
        "`[tap, …]`, `{source, taps}` or one tap, or NDJSON (one tap per line); number lexemes are kept. All or nothing: a line that is not JSON refuses the request (400, the line named)",
    },
    responses: {
      ...ok("Per-tap results: passed, captured or duplicate (without the id when another sender captured the record)"),
      413: { description: "More than 10,000 taps", schema: ErrorBodySchema },
    },
  },
];

const noBatch = { 404: { description: "No such batch", schema: ErrorBodySchema } };

const REPLAYS: Operation[] = [
  {
    method: "get",
    path: "/api/replays",
    tag: "replays",
    summary: "Replay batches, newest first",
    access: { permission: "replays:read" },
    query: ListBatchesQuery,
    responses: ok("{ batches }", untyped("batches")),
  },
  {
    method: "post",
    path: "/api/replays",
    tag: "replays",
    summary: "A draft batch from approved records (ids or a list filter)",
    access: { permission: "replays:manage" },
    body: CreateBatchBody,
    responses: {
      201: { description: "The batch" },
      409: { description: "expectedCount given and the selection now matches another number of records (`matched`)" },
    },
  },
  {
    method: "get",
    path: "/api/replays/{id}",
    tag: "replays",
    summary: "A batch: status, outcome counts, rates, ETA",
    access: { permission: "replays:read" },
    params: BatchIdParams,
    responses: {
      ...ok(
        "The batch: `status`, `counts` {applied, deduped, dropped, poison, failed, cancelled, pending}, `total`, `achievedRate` (last 10 s), `averageRate` (whole run: submissions per second from the first to the last, once ended), `eta`, `destinations` (back to origin: every distinct destination with counts), …",
      ),
      ...noBatch,
    },
  },
  {
    method: "get",
    path: "/api/replays/{id}/items",
    tag: "replays",
    summary: "A batch's items in replay order",
    access: { permission: "replays:read" },
    params: BatchIdParams,
    query: ItemsQuery,
    responses: { ...ok("A page of items"), ...noBatch },
  },
  {
    method: "get",
    path: "/api/replays/{id}/rate",
    tag: "replays",
    summary: "Submissions per second over a window",
    access: { permission: "replays:read" },
    params: BatchIdParams,
    query: RateQuery,
    responses: { ...ok("The series"), ...noBatch },
  },
  ...(["approve", "start", "pause", "resume", "cancel"] as const).map((action): Operation => ({
    method: "post",
    path: `/api/replays/{id}/${action}`,
    tag: "replays",
    summary: `${action[0]!.toUpperCase()}${action.slice(1)} a batch`,
    access: { permission: action === "approve" ? "replays:approve" : "replays:manage" },
    params: BatchIdParams,
    responses: { ...ok("The batch after the transition"), ...noBatch, 409: { description: "The batch's status forbids it" } },
  })),
];

const ACCOUNTS: Operation[] = [
  {
    method: "get",
    path: "/api/tokens",
    tag: "accounts",
    summary: "The caller's API tokens; all=1: every user's (admins, tokens:manage)",
    access: { permission: "tokens:own" },
    query: ListTokensQuery,
    responses: ok("{ tokens }"),
  },
  {
    method: "post",
    path: "/api/tokens",
    tag: "accounts",
    summary: "Create an API token (shown once)",
    description: "With a session only: a request authenticated by another API token is refused (403).",
    access: { permission: "tokens:own" },
    body: CreateTokenBody,
    responses: { 201: { description: "The token" } },
  },
  {
    method: "delete",
    path: "/api/tokens/{id}",
    tag: "accounts",
    summary: "Revoke a token",
    access: { permission: "tokens:own" },
    params: IdParams,
    responses: { ...ok("The revoked token"), 404: { description: "No such token (or not yours)" } },
  },
  {
    method: "get",
    path: "/api/users",
    tag: "accounts",
    summary: "Every account",
    access: { permission: "users:manage" },
    responses: ok("{ users }"),
  },
  {
    method: "post",
    path: "/api/users",
    tag: "accounts",
    summary: "Create an account",
    access: { permission: "users:manage" },
    body: CreateUserBody,
    responses: {
      201: { description: "The account (and a generated password, once)" },
      409: { description: "An account with this e-mail exists" },
    },
  },
  {
    method: "patch",
    path: "/api/users/{id}",
    tag: "accounts",
    summary: "Change a role, disable or enable",
    access: { permission: "users:manage" },
    params: IdParams,
    body: PatchUserBody,
    responses: { ...ok("The account"), 404: { description: "No such account" }, 409: { description: "It would leave no enabled admin" } },
  },
  {
    method: "post",
    path: "/api/auth/sign-in/email",
    tag: "accounts",
    summary: "Sign in (better-auth); sets the session cookie",
    access: { public: true },
    body: z.object({ email: z.string(), password: z.string(), rememberMe: z.boolean().optional() }),
    responses: {
      ...ok("Signed in"),
      400: { description: "A field missing or malformed (better-auth's own error body: { message, code })" },
      401: { description: "Wrong e-mail or password" },
      429: { description: "Too many attempts" },
    },
  },
  {
    method: "post",
    path: "/api/auth/sign-in/social",
    tag: "accounts",
    summary:
      "Start single sign-on (better-auth's OAuth flow; provider \"oidc\", only when configured): answers the identity provider's authorization URL, with state, PKCE and nonce",
    access: { public: true },
    body: z.object({
      provider: z.literal("oidc"),
      callbackURL: z.string().optional(),
      errorCallbackURL: z.string().optional(),
      disableRedirect: z.boolean().optional(),
    }),
    responses: { ...ok("{url, redirect}"), 404: { description: "Single sign-on is not configured" } },
  },
  {
    method: "get",
    path: "/api/auth/callback/{id}",
    tag: "accounts",
    summary:
      "The identity provider's redirect back (better-auth): checks state, exchanges the code with the PKCE verifier, verifies the ID token and its nonce, maps groups to a role; audited as auth.sso_sign_in or auth.sso_refused",
    access: { public: true },
    params: z.object({ id: z.literal("oidc") }),
    responses: { 302: { description: "To the page asked for, signed in; or to /sign-in?error=<code>" } },
  },
  {
    method: "post",
    path: "/api/auth/sign-out",
    tag: "accounts",
    summary:
      "Sign out (better-auth); audited as auth.sign_out. Signed in through the identity provider: answers its end-session URL ({url}) for RP-initiated logout",
    access: { public: true },
    responses: ok("Signed out"),
  },
  {
    method: "get",
    path: "/api/auth/get-session",
    tag: "accounts",
    summary: "The current session (better-auth)",
    access: { public: true },
    responses: ok("The session, or null"),
  },
  {
    method: "post",
    path: "/api/auth/change-password",
    tag: "accounts",
    summary: "Change your own password (better-auth); audited as user.password_changed",
    access: { public: true },
    body: z.object({ currentPassword: z.string(), newPassword: z.string(), revokeOtherSessions: z.boolean().optional() }),
    responses: {
      ...ok("Changed"),
      400: { description: "The current password is wrong or the new one too short or too long" },
      401: { description: "Not signed in" },
    },
  },
  {
    method: "get",
    path: "/api/auth/list-sessions",
    tag: "accounts",
    summary: "Your own sessions (better-auth): where you are signed in",
    access: { public: true },
    responses: { ...ok("The sessions"), 401: { description: "Not signed in" } },
  },
  {
    method: "post",
    path: "/api/auth/revoke-session",
    tag: "accounts",
    summary: "End one of your sessions by its token (better-auth); audited as auth.session_revoked",
    access: { public: true },
    body: z.object({ token: z.string() }),
    responses: { ...ok("Ended"), 401: { description: "Not signed in" } },
  },
  {
    method: "post",
    path: "/api/auth/revoke-sessions",
    tag: "accounts",
    summary: "End all your sessions, this one included (better-auth); audited as auth.sessions_revoked",
    access: { public: true },
    responses: { ...ok("Ended"), 401: { description: "Not signed in" } },
  },
  {
    method: "post",
    path: "/api/auth/revoke-other-sessions",
    tag: "accounts",
    summary: "End all your sessions but this one (better-auth); audited as auth.other_sessions_revoked",
    access: { public: true },
    responses: { ...ok("Ended"), 401: { description: "Not signed in" } },
  },
];

const FORENSICS: Operation[] = [
  {
    method: "get",
    path: "/api/dead-letters/{id}/timeline",
    tag: "forensics",
    summary: "Every event of a record's life, in order",
    description: "Masked by default; unmask=1 (auditors) is audited. download=1 answers a file.",
    access: { permission: "dead_letters:read" },
    params: IdParamsSchema,
    query: TimelineQuerySchema,
    responses: { ...ok("The timeline"), ...notFound },
  },
  {
    method: "post",
    path: "/api/dead-letters/{id}/reveal",
    tag: "forensics",
    summary: "One masked field in clear (audited)",
    access: { permission: "dead_letters:unmask" },
    params: IdParamsSchema,
    body: RevealBodySchema,
    responses: { ...ok("The field's value"), ...notFound },
  },
  {
    method: "get",
    path: "/api/lookup",
    tag: "forensics",
    summary: "Records by any identifier or place, and settled keys",
    description: "q and/or a place: bbox=minLon,minLat,maxLon,maxLat or near=lon,lat with radiusKm; from/to narrow by observation time.",
    access: { permission: "dead_letters:read" },
    query: LookupQuerySchema,
    responses: ok("Matches"),
  },
  {
    method: "get",
    path: "/api/export",
    tag: "forensics",
    summary: "The filter's records as NDJSON, CSV or GeoJSON (streamed, audited)",
    description:
      "Audited in the reader's name: with a browser session, only when Redrive's own page started it (Sec-Fetch-Site same-origin or none); 403 otherwise.",
    access: { permission: "dead_letters:export", auditedRead: true },
    query: ExportQuerySchema,
    responses: ok("The file (x-redrive-estimated-count gives the expected rows)"),
  },
  {
    method: "get",
    path: "/api/overview",
    tag: "forensics",
    summary: "DLQ health: counts, series, oldest record, replays, alerts",
    access: { permission: "dead_letters:read" },
    responses: ok("The overview"),
  },
  {
    method: "get",
    path: "/api/metrics",
    tag: "forensics",
    summary: "Prometheus metrics (text format; scrape with an API token)",
    access: { permission: "dead_letters:read", tokenOnly: true },
    responses: ok("text/plain; version=0.0.4"),
  },
  {
    method: "get",
    path: "/api/quarantine/groups",
    tag: "forensics",
    summary: "Quarantined records by reason pattern, with a 14-day trend",
    access: { permission: "dead_letters:read" },
    responses: ok("The groups"),
  },
  {
    method: "post",
    path: "/api/quarantine/release",
    tag: "forensics",
    summary: "Quarantined → pending, by ids or filter",
    access: { permission: "dead_letters:triage" },
    body: QuarantineBodySchema,
    responses: {
      ...ok("{ released, skipped }"),
      409: { description: "With a filter: the group's count is no longer the confirmed expectedCount" },
    },
  },
  {
    method: "post",
    path: "/api/quarantine/purge",
    tag: "forensics",
    summary: "Remove quarantined payloads (status purged), by ids or filter",
    access: { permission: "dead_letters:purge" },
    body: QuarantineBodySchema,
    responses: {
      ...ok("{ purged, skipped }"),
      409: { description: "With a filter: the group's count is no longer the confirmed expectedCount" },
    },
  },
  {
    method: "get",
    path: "/api/audit",
    tag: "forensics",
    summary: "The audit trail, newest first (auditors, admins)",
    description:
      "Filter by action (exact, or a prefix ending with '.'), actor e-mail, target type and id, time; page with cursor = nextCursor. Card data masked.",
    access: { permission: "audit:read" },
    query: AuditQuerySchema,
    responses: ok("{ events, nextCursor, masked }"),
  },
  {
    method: "get",
    path: "/api/alerts",
    tag: "forensics",
    summary: "Alert rules and the latest alert events",
    access: { permission: "dead_letters:read" },
    responses: ok("Rules and events"),
  },
  {
    method: "patch",
    path: "/api/alerts/{id}",
    tag: "forensics",
    summary: "Edit an alert rule (audited)",
    access: { permission: "alerts:manage" },
    params: AlertRuleParamsSchema,
    body: AlertRuleUpdateSchema,
    responses: { ...ok("The rule"), 404: { description: "No such rule" } },
  },
];

const SOURCES: Operation[] = [
  {
    method: "get",
    path: "/api/sources",
    tag: "sources",
    summary: "Every broker source with its state (URLs redacted)",
    access: { permission: "sources:read" },
    responses: ok("{sources: [...]}", untyped("{sources: SourceView[]}")),
  },
  {
    method: "post",
    path: "/api/sources",
    tag: "sources",
    summary: "Add a source: a RabbitMQ queue, a JetStream stream's consumers or a Redis stream group (audited; the URL is sealed at rest)",
    access: { permission: "sources:manage" },
    body: CreateSourceBody,
    responses: { 201: { description: "The source" }, 409: { description: "A source with that name exists" } },
  },
  {
    method: "get",
    path: "/api/sources/{name}",
    tag: "sources",
    summary: "One source with its state",
    access: { permission: "sources:read" },
    params: SourceNameParams,
    responses: { ...ok("The source"), 404: { description: "No such source" } },
  },
  {
    method: "patch",
    path: "/api/sources/{name}",
    tag: "sources",
    summary: "Change a source, or pause (enabled: false) and resume it (audited)",
    access: { permission: "sources:manage" },
    params: SourceNameParams,
    body: PatchSourceBody,
    responses: { ...ok("The source"), 404: { description: "No such source" } },
  },
  {
    method: "delete",
    path: "/api/sources/{name}",
    tag: "sources",
    summary: "Remove a source (audited); its records keep their origin, and what it created on the broker is removed",
    access: { permission: "sources:manage" },
    params: SourceNameParams,
    responses: { ...ok("{removed, broker: {cleaned, error?}}"), 404: { description: "No such source" } },
  },
  {
    method: "post",
    path: "/api/sources/{name}/pull",
    tag: "sources",
    summary: "Pull now: store what waits (up to max) and acknowledge it after the commit",
    access: { permission: "sources:manage" },
    params: SourceNameParams,
    body: PullBody,
    responses: {
      ...ok("{pulled, created, duplicates, unreadable, failedAgain?}: failedAgain, when any, counts replayed records back in triage"),
      409: { description: "A worker is pulling the source now" },
      502: { description: "The broker could not be reached or refused (recorded on the source)" },
    },
  },
  {
    method: "get",
    path: "/api/sources/{name}/status",
    tag: "sources",
    summary:
      "What waits in the broker, the last pull, totals and the last error: as the pullers recorded it (an admin's call asks the broker now, unless the source is backing off)",
    access: { permission: "sources:read" },
    params: SourceNameParams,
    responses: { ...ok("The state"), 404: { description: "No such source" } },
  },
];

const SETTINGS: Operation[] = [
  {
    method: "get",
    path: "/api/settings/replay-approval",
    tag: "replays",
    summary:
      "The single-approver limit: batches of at most `limit` records may be approved by their creator alone (0 = four eyes for every batch)",
    access: { permission: "replays:read" },
    responses: ok("{limit, updatedAt, updatedBy}"),
  },
  {
    method: "put",
    path: "/api/settings/replay-approval",
    tag: "replays",
    summary: "Set the single-approver limit (admins; audited as setting.changed with before and after)",
    access: { permission: "settings:manage" },
    body: SingleApproverBody,
    responses: ok("{limit, updatedAt, updatedBy}"),
  },
  {
    method: "get",
    path: "/api/settings/sso",
    tag: "accounts",
    summary: "Single sign-on (OpenID Connect) in force: each field's value and whether the settings or the environment set it",
    access: { permission: "settings:manage" },
    responses: ok(
      "{configured, issuer, clientId, clientSecretSet, name, scopes, groupsClaim, roleMap, passwordSignIn, breakGlassEmail, …}",
    ),
  },
  {
    method: "put",
    path: "/api/settings/sso",
    tag: "accounts",
    summary:
      "Change the identity provider, the group-to-role map or password sign-in (admins; audited as setting.changed; the client secret sealed, never returned)",
    access: { permission: "settings:manage" },
    body: SsoSettingsBody,
    responses: ok("as GET"),
  },
];

const PRODUCER: Operation[] = [
  {
    method: "get",
    path: "/api/producer/records",
    tag: "producer",
    summary: "The records the caller's tokens and sessions sent: status, reason, received time, and counts",
    description:
      "Newest observation first; pass nextCursor back as cursor. Counts cover all the caller's records. Reasons and keys are " +
      "masked (card numbers keep their last 4); no payloads.",
    access: { permission: "dead_letters:read_own" },
    query: OwnRecordsQuerySchema,
    responses: ok("A page of the caller's records", OwnRecordsPageSchema),
  },
  {
    method: "get",
    path: "/api/producer/records/{id}",
    tag: "producer",
    summary: "One record the caller sent",
    access: { permission: "dead_letters:read_own" },
    params: OwnRecordParamsSchema,
    responses: { ...ok("The record", OwnRecordSchema), 404: { description: "No such record among those the caller sent" } },
  },
];

const META: Operation[] = [
  {
    method: "get",
    path: "/api/health",
    tag: "meta",
    summary: "Database reachability and migration state",
    access: { public: true },
    responses: { ...ok("ok"), 503: { description: "Not ok" } },
  },
  {
    method: "get",
    path: "/api/health/live",
    tag: "meta",
    summary: "Liveness: the process answers (no database check)",
    access: { public: true },
    responses: ok("live"),
  },
  {
    method: "get",
    path: "/api/health/ready",
    tag: "meta",
    summary: "Readiness: database reachable, this code's migrations applied, not stopping",
    access: { public: true },
    responses: { ...ok("ready"), 503: { description: "Not ready, with the reasons" } },
  },
  {
    method: "get",
    path: "/api/openapi.json",
    tag: "meta",
    summary: "This document",
    access: { public: true },
    responses: ok("OpenAPI 3.1"),
  },
];

const GROUPS: Operation[] = [
  {
    method: "get",
    path: "/api/groups",
    tag: "groups",
    summary: "Failure groups (source + reason group) with status, owner, counts and a 14-day trend",
    description: "sort=new (latest arrival first) | size | age (seen first, first); status filters by the groups' status.",
    access: { permission: "dead_letters:read" },
    query: GroupListQuerySchema,
    responses: ok("{ groups }"),
  },
  {
    method: "get",
    path: "/api/groups/{id}",
    tag: "groups",
    summary: "One failure group with its notes",
    access: { permission: "dead_letters:read" },
    params: GroupIdParamsSchema,
    responses: { ...ok("The group"), 404: { description: "No such group" } },
  },
  {
    method: "patch",
    path: "/api/groups/{id}",
    tag: "groups",
    summary: "Acknowledge, resolve (with a reason), ignore or reopen a group, assign its owner, add a note (audited)",
    access: { permission: "dead_letters:triage" },
    params: GroupIdParamsSchema,
    body: GroupPatchSchema,
    responses: {
      ...ok("The group"),
      404: { description: "No such group" },
      409: { description: "version given and the group changed since" },
    },
  },
];

export const OPERATIONS: readonly Operation[] = [
  ...DEAD_LETTERS,
  ...GROUPS,
  ...REPLAYS,
  ...SETTINGS,
  ...FORENSICS,
  ...SOURCES,
  ...ACCOUNTS,
  ...NOTES_AND_VIEWS,
  ...RULES,
  ...PRODUCER,
  ...META,
];

let cached: ReturnType<typeof buildOpenApi> | null = null;

export function openApiDocument(): ReturnType<typeof buildOpenApi> {
  cached ??= buildOpenApi(OPERATIONS, {
    title: "Redrive API",
    version: "1",
    description:
      "Triage and paced replay of dead-lettered spatial (GeoJSON) and AFC (fare tap) events. Authenticate with `Authorization: Bearer <API token>` " +
      "or the browser session. Errors answer `{ error: { code, message, issues } }` (issues: `[{ path, message }]`, empty when no field is at fault); 4xx messages name the field and the rule.",
  });
  return cached;
}
