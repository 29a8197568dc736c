import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { TeamIdParams, TeamPatchSchema, TeamViewSchema } from "@/lib/auth/teams/team-schemas";
import { deleteTeam, getTeam, updateTeam } from "@/lib/auth/teams/teams";
import { getDb } from "@/lib/db/client";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/teams/{id} — one team (admins). */
export const GET = defineRoute(
  {
    access: { permission: "users:manage" },
    params: TeamIdParams,
    openapi: {
      tag: "accounts",
      summary: "One team",
      responses: { 200: { description: "The team", schema: TeamViewSchema }, 404: { description: "No such team" } },
    },
  },
  async ({ params }) => getTeam(getDb().pool, params.id),
);

/** PATCH /api/teams/{id} {name?, members?, sources?} — replace what is given (admins); audited as team.updated. */
export const PATCH = defineRoute(
  {
    access: { permission: "users:manage" },
    params: TeamIdParams,
    body: TeamPatchSchema,
    openapi: {
      tag: "accounts",
      summary: "Change a team's name, members or sources",
      description: "members and sources, when given, replace the team's.",
      responses: {
        200: { description: "The team", schema: TeamViewSchema },
        404: { description: "No such team" },
        409: { description: "A team with that name exists" },
      },
    },
  },
  async ({ params, body, principal, requestId, now }) =>
    updateTeam(getDb().pool, params.id, body, { actor: actorOf(principal!), requestId, now }),
);

/** DELETE /api/teams/{id} — remove a team (admins); its members see every record again unless in another team. */
export const DELETE = defineRoute(
  {
    access: { permission: "users:manage" },
    params: TeamIdParams,
    openapi: {
      tag: "accounts",
      summary: "Remove a team",
      responses: { 200: { description: "Removed", schema: z.object({ deleted: z.literal(true) }) }, 404: { description: "No such team" } },
    },
  },
  async ({ params, principal, requestId, now }) => {
    await deleteTeam(getDb().pool, params.id, { actor: actorOf(principal!), requestId, now });
    return { deleted: true as const };
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT } = otherMethods("GET", "PATCH", "DELETE");
