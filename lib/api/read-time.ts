import "server-only";

/**
 * When a server component starts reading what it hands its client components as `initial` data: the client's
 * query treats that data as fetched at this time (initialDataUpdatedAt), so a page the browser restores later
 * (Back, through Next's router cache) refetches instead of showing minutes-old data as new. A server component
 * renders once per request, so reading the clock here is not the impure render react-hooks/purity guards against.
 */
export function readTime(): number {
  return Date.now();
}
