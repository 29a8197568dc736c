// Whether a request was started by another site (a link or a form on it): the browser says so in
// Sec-Fetch-Site. Used for the reads that write an audit event in the reader's name (card data in clear): a page
// elsewhere could make a signed-in auditor's browser open one, which puts an unmasked read they never chose in
// the trail. Same-site navigation, typed URLs and bookmarks ("none") and tools (no header) are not cross-site.

export function isCrossSite(headers: { get(name: string): string | null }): boolean {
  return headers.get("sec-fetch-site") === "cross-site";
}
