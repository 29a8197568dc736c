import { AppError } from "../errors/app-error";

// A path whose percent-encoding does not decode to UTF-8 (`/api/groups/%C0%AE`, `/dead-letters/%C0`): Next
// fails to decode its route parameters before any route handler runs, and answered a bare text 500. proxy.ts
// turns it away first, for every path: the API with its JSON 400 naming the path, pages with the not-found page.

/** Whether `pathname` (as received, still encoded) holds percent-encoding that does not decode. */
export function undecodablePath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}

/** The API's answer for such a path: 400, naming it (as received: it has no decoded form). */
export function malformedPathError(pathname: string): AppError {
  const message = "is not valid percent-encoded UTF-8";
  return new AppError("bad_request", `path: ${pathname.slice(0, 300)} ${message}`, { issues: [{ path: "path", message }] });
}

/**
 * Where a page path that does not decode is sent instead: no page lives under an underscore folder (Next keeps
 * those private), so the app's own not-found page answers it, with a 404.
 */
export const MALFORMED_PAGE_PATH = "/_malformed-address";
