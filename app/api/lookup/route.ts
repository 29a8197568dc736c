import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { hasUnmaskRights, maskFor } from "@/lib/forensics/access";
import { lookup } from "@/lib/forensics/lookup";
import { LookupQuerySchema } from "@/lib/forensics/forensics-schemas";

export const dynamic = "force-dynamic";

/** GET /api/lookup?q=&bbox=&near=&radiusKm=&from=&to=&limit= — records by any identifier or place, and settled keys. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    query: LookupQuerySchema,
    openapi: {
      tag: "forensics",
      summary: "Records by any identifier or place, and settled keys",
      description: "q and/or a place: bbox=minLon,minLat,maxLon,maxLat or near=lon,lat with radiusKm; from/to narrow by observation time.",
      responses: { 200: { description: "Matches" } },
    },
  },
  async ({ query, principal }) =>
    lookup(getDb().pool, principal!.scope, query, maskFor(principal, false), { unmaskRights: hasUnmaskRights(principal) }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
