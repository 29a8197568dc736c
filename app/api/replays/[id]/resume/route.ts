import { otherMethods } from "@/lib/api/handler";
import { batchActionRoute } from "@/lib/replay/api";

export const dynamic = "force-dynamic";

/** POST /api/replays/{id}/resume — see lib/replay/state.ts for who may do it from which status. */
export const POST = batchActionRoute("resume");

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
