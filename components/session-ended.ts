"use client";

import { toast } from "sonner";
import { HttpError } from "@/lib/api/client";

// A browser session that ended (signed out in another tab, expired, revoked by an admin) makes every request a
// 401. Said once, with a way back: a banner that stays, and a sign-in that returns here. Polling stops meanwhile
// (a polling page would otherwise send failing request after request, each with its own error). A full page load after signing in
// starts this module afresh.

let ended = false;

/** A 401: onApiError says so, once; a mutation's own error toast stays quiet rather than saying it again. */
export function isSessionEnd(err: unknown): boolean {
  return err instanceof HttpError && err.status === 401;
}

/** A polling interval that stops once the session has ended. */
export function poll(ms: number | false): number | false {
  return ended ? false : ms;
}

/** For the QueryClient's caches: any query or mutation answered 401. */
export function onApiError(err: unknown): void {
  if (!isSessionEnd(err) || typeof window === "undefined") return;
  ended = true;
  toast.error("Your session has ended", {
    id: "session-ended",
    duration: Infinity,
    description: "Sign in again to go on. A draft you have not saved stays on this page until you leave it.",
    action: {
      label: "Sign in",
      // A full load, not a client navigation: the browser asks first when an editor holds a draft (beforeunload),
      // and this module starts afresh after signing in. Back to this page afterwards.
      // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- see above
      onClick: () => window.location.assign(`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`),
    },
  });
}
