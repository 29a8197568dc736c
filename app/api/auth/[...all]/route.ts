import { toNextJsHandler } from "better-auth/next-js";
import { errorResponse, noRouteError, otherMethods, requestIdOf } from "@/lib/api/handler";
import { handleAuthRequest } from "@/lib/auth/auth";

// better-auth's own endpoints (sign-in, sign-out, get-session, change-password); sign-up and account edits
// are disabled in lib/auth/auth.ts. The one route not built with defineRoute: better-auth checks origins and
// rate-limits itself.
export const dynamic = "force-dynamic";

/**
 * better-auth answers a path it does not have (and the disabled sign-up and account edits) with an empty or
 * plain-text 404: answer it as every other unknown /api path does, in JSON naming the path.
 */
async function handle(request: Request): Promise<Response> {
  const res = await handleAuthRequest(request, new Date());
  if (res.status !== 404 || res.headers.get("content-type")?.includes("json")) return res;
  return errorResponse(noRouteError(request), requestIdOf(request));
}

export const { GET, POST } = toNextJsHandler(handle);

/** Other methods: 405 with Allow, in JSON, like every other /api route (better-auth's own errors stay its own). */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
