import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { getEnv } from "@/lib/env";
import { ArchiveSettingBody } from "@/lib/ops/archive-schemas";
import { readArchiveSetting, setArchiveHorizon } from "@/lib/ops/archive-setting";

export const dynamic = "force-dynamic";

/** GET /api/settings/archive — the archive horizon (null: settled records stay forever), who set it and when. */
export const GET = defineRoute(
  {
    access: { permission: "settings:manage" },
    openapi: {
      tag: "forensics",
      summary:
        "The archive horizon: days a replayed or purged record stays in the dead letters before it moves to the archive (null: forever), beside the payload retention",
      responses: { 200: { description: "{days, retentionDays, updatedAt, updatedBy}" } },
    },
  },
  async () => readArchiveSetting(getDb().pool, getEnv().REDRIVE_RETENTION_DAYS),
);

/**
 * PUT /api/settings/archive {days} — settled records older than `days` move to the archive (lookup, the timeline
 * and dedup still read it); null keeps them forever. Admins; audited as setting.changed with before and after.
 */
export const PUT = defineRoute(
  {
    access: { permission: "settings:manage" },
    body: ArchiveSettingBody,
    openapi: {
      tag: "forensics",
      summary: "Set the archive horizon in days, or null to keep settled records forever (admins; audited as setting.changed)",
      responses: { 200: { description: "{days, retentionDays, updatedAt, updatedBy}" } },
    },
  },
  async ({ body, principal, requestId, now }) =>
    setArchiveHorizon(getDb().pool, body.days, getEnv().REDRIVE_RETENTION_DAYS, { actor: actorOf(principal!), requestId, now }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PATCH, DELETE } = otherMethods("GET", "PUT");
