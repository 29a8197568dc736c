import { NextResponse, type NextRequest } from "next/server";
import { PATH_HEADER } from "@/lib/auth/next-path";
import { pagePolicy } from "@/lib/net/content-security-policy";
import { MALFORMED_PAGE_PATH, malformedPathError, undecodablePath } from "@/lib/api/malformed-path";

// Runs before every page: tells server components which page was asked for (so requirePagePrincipal can send a
// signed-out user to /sign-in?next=<that page>), and gives the page its Content-Security-Policy with a fresh
// nonce. Next reads the policy from the request headers and puts the nonce on every script it renders.
// Authentication itself is not done here: pages and route handlers check it.
// It also runs before any path (API included) whose percent-encoding does not decode, which Next would fail on
// before a route handler could answer (lib/api/malformed-path.ts).

export function proxy(request: NextRequest): NextResponse {
  const path = request.nextUrl.pathname;
  const malformed = undecodablePath(path);
  if (malformed && path.startsWith("/api/")) {
    const err = malformedPathError(path);
    return NextResponse.json(err.toJSON(), { status: err.status, headers: { "cache-control": "no-store" } });
  }
  if (path.startsWith("/api/")) return NextResponse.next();
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const policy = pagePolicy(nonce, process.env.NODE_ENV !== "production");
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, malformed ? "/" : request.nextUrl.pathname + request.nextUrl.search); // overwrites any client value
  headers.set("content-security-policy", policy);
  const response = malformed
    ? NextResponse.rewrite(new URL(MALFORMED_PAGE_PATH, request.url), { request: { headers } })
    : NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [
    // Pages: not the API, Next's assets or files with an extension.
    "/((?!api/|_next/|.*\\.[a-zA-Z0-9]+$).*)",
    // Any API path holding a percent sign, to turn away one that does not decode.
    "/api/(.*%.*)",
  ],
};
