import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { audienceOf, listSources } from "@/lib/sources/manage-sources";
import { addSource } from "@/lib/sources/pull-now";
import { sourceLocations } from "@/lib/sources/registry";
import { CreateSourceBody } from "@/lib/sources/source-schemas";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/sources — every broker source with its state (URL redacted); to a user in teams, their teams' (by origin). */
export const GET = defineRoute(
  {
    access: { permission: "sources:read" },
    openapi: {
      tag: "sources",
      summary: "Every broker source with its state (URLs redacted)",
      responses: { 200: { description: "{sources: [...]}", schema: z.looseObject({}).describe("{sources: SourceView[]}") } },
    },
  },
  async ({ now, principal }) => ({
    sources: await listSources(getDb().pool, now, audienceOf(principal!.role), principal!.scope),
  }),
);

/** POST /api/sources {name, type, url, kind, options, enabled?} — admins add a source (audited); 201 with it. */
export const POST = defineRoute(
  {
    access: { permission: "sources:manage" },
    body: CreateSourceBody,
    openapi: {
      tag: "sources",
      summary: `Add a source: ${sourceLocations()} (audited; the URL is sealed at rest)`,
      responses: { 201: { description: "The source" }, 409: { description: "A source with that name exists" } },
    },
  },
  async ({ body, principal, now, requestId }) => {
    const created = await addSource(getDb().pool, body, { actor: actorOf(principal!), now, requestId });
    return answer(created, { status: 201, headers: { location: `/api/sources/${encodeURIComponent(created.name)}` } });
  },
);

export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
