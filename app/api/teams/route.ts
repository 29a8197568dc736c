import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { TeamBodySchema, TeamViewSchema } from "@/lib/auth/teams/team-schemas";
import { createTeam, listTeams } from "@/lib/auth/teams/teams";
import { getDb } from "@/lib/db/client";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/teams — every team with its members and the records it holds (admins). */
export const GET = defineRoute(
  {
    access: { permission: "users:manage" },
    openapi: {
      tag: "accounts",
      summary: "List teams",
      description: "A user in teams sees and changes only their teams' records; a user in no team sees every record.",
      responses: { 200: { description: "The teams", schema: z.object({ items: z.array(TeamViewSchema) }) } },
    },
  },
  async () => ({ items: await listTeams(getDb().pool) }),
);

/** POST /api/teams {name, members, sources} — create a team (admins); audited as team.created. */
export const POST = defineRoute(
  {
    access: { permission: "users:manage" },
    body: TeamBodySchema,
    openapi: {
      tag: "accounts",
      summary: "Create a team",
      description:
        "sources: [{source?: a record source or a prefix ending in `*`, origin?: a broker source's name}]; a record belongs " +
        "to the team when its source or its origin matches.",
      responses: {
        201: { description: "The team", schema: TeamViewSchema },
        409: { description: "A team with that name exists" },
      },
    },
  },
  async ({ body, principal, requestId, now }) =>
    answer(await createTeam(getDb().pool, body, { actor: actorOf(principal!), requestId, now }), { status: 201 }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
