import { batchActionRoute } from "@/lib/replay/api";

export const dynamic = "force-dynamic";

/** POST /api/replays/{id}/approve — see lib/replay/state.ts for who may do it from which status. */
export const POST = batchActionRoute("approve");
