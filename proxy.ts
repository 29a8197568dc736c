import { NextResponse, type NextRequest } from "next/server";
import { PATH_HEADER } from "@/lib/auth/next-path";

// Tells server components which page was asked for, so requirePagePrincipal can send a signed-out user to
// /sign-in?next=<that page>. Authentication itself is not done here: pages and route handlers check it.

export function proxy(request: NextRequest): NextResponse {
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search); // overwrites any client value
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Pages only: not the API, Next's assets or files with an extension.
  matcher: ["/((?!api/|_next/|.*\\.[a-zA-Z0-9]+$).*)"],
};
