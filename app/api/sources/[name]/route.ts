import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { assertSourceInScope, audienceOf, deleteSource, getSource, updateSource } from "@/lib/sources/manage-sources";
import { removeFromBroker } from "@/lib/sources/pull-now";
import { PatchSourceBody, SourceNameParams } from "@/lib/sources/source-schemas";

export const dynamic = "force-dynamic";

/** GET /api/sources/{name} — one source with its state; 404 to a user in teams for a source their teams do not claim. */
export const GET = defineRoute(
  {
    access: { permission: "sources:read" },
    params: SourceNameParams,
    openapi: {
      tag: "sources",
      summary: "One source with its state",
      responses: { 200: { description: "The source" }, 404: { description: "No such source" } },
    },
  },
  async ({ params, now, principal }) => {
    assertSourceInScope(principal!.scope, params.name);
    return getSource(getDb().pool, params.name, now, audienceOf(principal!.role));
  },
);

/** PATCH /api/sources/{name} {url?, kind?, options?, enabled?} — change or pause/resume a source (audited). */
export const PATCH = defineRoute(
  {
    access: { permission: "sources:manage" },
    params: SourceNameParams,
    body: PatchSourceBody,
    openapi: {
      tag: "sources",
      summary: "Change a source, or pause (enabled: false) and resume it (audited)",
      responses: { 200: { description: "The source" }, 404: { description: "No such source" } },
    },
  },
  async ({ params, body, principal, now, requestId }) =>
    updateSource(getDb().pool, params.name, body, { actor: actorOf(principal!), now, requestId }),
);

/** DELETE /api/sources/{name} — remove the source (audited); its records keep their origin. */
export const DELETE = defineRoute(
  {
    access: { permission: "sources:manage" },
    params: SourceNameParams,
    openapi: {
      tag: "sources",
      summary: "Remove a source (audited); its records keep their origin, and what it created on the broker is removed",
      responses: { 200: { description: "{removed, broker: {cleaned, error?}}" }, 404: { description: "No such source" } },
    },
  },
  async ({ params, principal, now, requestId }) => {
    const removed = await deleteSource(getDb().pool, params.name, { actor: actorOf(principal!), now, requestId });
    const broker = await removeFromBroker(removed);
    return { removed: removed.name, broker };
  },
);

export const { POST, PUT } = otherMethods("GET", "PATCH", "DELETE");
