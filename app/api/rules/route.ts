import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { ruleContext } from "@/lib/api/rule-routes";
import { getDb } from "@/lib/db/client";
import { STANDING_REPLAY } from "@/lib/replay/batch/standing-rules";
import { createRule, listRules } from "@/lib/rules/rules";
import { CreateRuleBodySchema } from "@/lib/rules/rule-schemas";

export const dynamic = "force-dynamic";

/** GET /api/rules — every triage rule with its latest version and stats. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    openapi: {
      tag: "rules",
      summary: "Triage rules with their latest version, status (draft, active, disabled), stats and standing replay",
      description:
        "`stats`: decisions today and this week, and `replay`: the outcomes of the rule's standing replays by their items' state now " +
        "(joined = waiting + sending + retrying + applied + duplicate + failed + dropped + cancelled; queued: the same as joined; " +
        "retrying: sent, failed, waiting for their retry, which the canary counts as failures; duplicate: absorbed by the dedup; " +
        "sent: submitted to the sink at least once; notReplayable: approved records that could not join the flow, e.g. no broker " +
        "source to go back to; failedAfterReplay: its records that failed again after their replay, last 7 days). `standing`: the " +
        "flow (its batch, status, reason, canary state watching/passed/tripped).",
      responses: { 200: { description: "{ rules }" } },
    },
  },
  async ({ now, principal }) => ({
    rules: await listRules(getDb().pool, now, principal!.scope, STANDING_REPLAY),
  }),
);

/** POST /api/rules — a rule's first version: 201 with the rule, a draft until a second supervisor approves it. */
export const POST = defineRoute(
  {
    access: { permission: "replays:approve" },
    body: CreateRuleBodySchema,
    openapi: {
      tag: "rules",
      summary: "Draft a rule (version 1): it decides nothing until a second supervisor approves it",
      description:
        "`match`: kind, source, origin (broker source), reason (reason group), class, afcIssues (the tap schema's issues, by field or " +
        "`field: message`; every issue of a record must be listed), repair {method, policy, sameType, maxAreaChange, maxDroppedParts}. " +
        "`action`: approve (pins the repair it matched on), quarantine (with a reason) or leave (count only). `replay` (approving rules only): " +
        "{sink, ratePerSecond, canary?: {count, maxFailureRate}} — a standing replay: once the version is approved, the records it approves " +
        'flow into one paced batch to the sink ("ledger", "origin" or a sink configuration such as {type: "http", url}), approved by ' +
        "that approval; the canary pauses the flow when the first `count` items fail above `maxFailureRate`.",
      responses: { 201: { description: "The rule: id, version 1, status draft" }, 409: { description: "A rule of that name exists" } },
    },
  },
  async ({ body, principal, requestId, now }) =>
    answer(await createRule(getDb().pool, body, ruleContext(principal, requestId, now)), { status: 201 }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
