import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { SingleApproverBody } from "@/lib/replay/batch/batch-schemas";
import { readSingleApproverSetting, setSingleApproverLimit } from "@/lib/replay/batch/single-approver";

export const dynamic = "force-dynamic";

/** GET /api/settings/replay-approval — the single-approver limit (0 = four eyes for every batch), who set it and when. */
export const GET = defineRoute(
  {
    access: { permission: "replays:read" },
    openapi: {
      tag: "replays",
      summary:
        "The single-approver limit: batches of at most `limit` records may be approved by their creator alone (0 = four eyes for every batch)",
      responses: { 200: { description: "{limit, updatedAt, updatedBy}" } },
    },
  },
  async () => readSingleApproverSetting(getDb().pool),
);

/**
 * PUT /api/settings/replay-approval {limit} — batches of at most `limit` records may be approved by their creator
 * alone (admins; the change is audited as setting.changed with before and after).
 */
export const PUT = defineRoute(
  {
    access: { permission: "settings:manage" },
    body: SingleApproverBody,
    openapi: {
      tag: "replays",
      summary: "Set the single-approver limit (admins; audited as setting.changed with before and after)",
      responses: { 200: { description: "{limit, updatedAt, updatedBy}" } },
    },
  },
  async ({ body, principal, requestId, now }) =>
    setSingleApproverLimit(getDb().pool, body.limit, { actor: actorOf(principal!), requestId, now }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PATCH, DELETE } = otherMethods("GET", "PUT");
