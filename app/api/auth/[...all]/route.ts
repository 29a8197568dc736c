import { toNextJsHandler } from "better-auth/next-js";
import { otherMethods } from "@/lib/api/handler";
import { getAuth } from "@/lib/auth/auth";

// better-auth's own endpoints (sign-in, sign-out, get-session, change-password); sign-up and account edits
// are disabled in lib/auth/auth.ts. The one route not built with defineRoute: better-auth checks origins and
// rate-limits itself.
export const dynamic = "force-dynamic";

export const { GET, POST } = toNextJsHandler((request: Request) => getAuth().handler(request));

/** Other methods: 405 with Allow, in JSON, like every other /api route (better-auth's own errors stay its own). */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
