import { NextResponse, type NextRequest } from "next/server";
import { PATH_HEADER } from "@/lib/auth/next-path";
import { pagePolicy } from "@/lib/net/content-security-policy";

// Runs before every page: tells server components which page was asked for (so requirePagePrincipal can send a
// signed-out user to /sign-in?next=<that page>), and gives the page its Content-Security-Policy with a fresh
// nonce. Next reads the policy from the request headers and puts the nonce on every script it renders.
// Authentication itself is not done here: pages and route handlers check it.

export function proxy(request: NextRequest): NextResponse {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const policy = pagePolicy(nonce, process.env.NODE_ENV !== "production");
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search); // overwrites any client value
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  // Pages only: not the API, Next's assets or files with an extension.
  matcher: ["/((?!api/|_next/|.*\\.[a-zA-Z0-9]+$).*)"],
};
