// Whether a browser request was started by Redrive itself: the browser says who started it in Sec-Fetch-Site.
// Used for the reads that write an audit event in the reader's name (card data in clear, exports): a page elsewhere
// could make a signed-in auditor's browser start one, which puts a read they never chose in the trail. "Elsewhere"
// includes the same site: a page on another port of the same host or on a sibling subdomain is "same-site", and
// that is exactly where an attacker's page is likeliest to live (a neighbouring service), so only "same-origin"
// (Redrive's own pages) and "none" (typed URLs, bookmarks) count. No header at all: a tool (curl, an API client)
// or a browser too old to send it; both were accepted before this header existed and still are.

const FROM_REDRIVE = new Set(["same-origin", "none"]);

export function startedByRedrive(headers: { get(name: string): string | null }): boolean {
  const site = headers.get("sec-fetch-site");
  return site === null || FROM_REDRIVE.has(site.trim().toLowerCase());
}
