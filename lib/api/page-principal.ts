import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { PATH_HEADER, safeNextPath } from "../auth/next-path";
import { can, type Permission } from "../auth/permissions";
import { authenticateHeaders, type Principal } from "../auth/principal";

// Server components' side of authentication: the same principal as the API's, read from the page request's headers.

/** For server components: the signed-in user, or null. */
export async function getPagePrincipal(): Promise<Principal | null> {
  return authenticateHeaders(new Headers(await headers()));
}

/**
 * For server components: the signed-in user. Signed out → redirect to /sign-in?next=<this page>; signed in
 * without `permission` → redirect to /forbidden, which says which permission is missing.
 */
export async function requirePagePrincipal(permission?: Permission, opts: { next?: string } = {}): Promise<Principal> {
  const h = await headers();
  const principal = await authenticateHeaders(new Headers(h));
  if (!principal) {
    const next = safeNextPath(opts.next ?? h.get(PATH_HEADER));
    return redirect(next === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(next)}`);
  }
  if (permission && !can(principal.role, permission)) return redirect(`/forbidden?permission=${encodeURIComponent(permission)}`);
  return principal;
}
