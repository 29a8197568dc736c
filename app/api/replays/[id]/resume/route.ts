import { otherMethods } from "@/lib/api/handler";
import { batchActionRoute } from "@/lib/api/batch-action-route";

export const dynamic = "force-dynamic";

/** POST /api/replays/{id}/resume — see lib/replay/batch/batch-states.ts for who may do it from which status. */
export const POST = batchActionRoute("resume");

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
