// URLs operators configure (an HTTP sink, an alert webhook) can carry credentials: in the userinfo, in query
// parameters (?api_key=…), or, for chat webhooks, in the path itself. Readers other than the people who manage
// them see what such a URL points at, not how to use it. Pure and client-safe.

const REDACTED = "redacted";

/** The URL with its userinfo and every query value replaced; the origin and path stay (they name the endpoint). */
export function redactUrlSecrets(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return REDACTED;
  }
  if (u.username || u.password) {
    u.username = REDACTED;
    u.password = "";
  }
  for (const key of new Set(u.searchParams.keys())) u.searchParams.set(key, REDACTED);
  return u.toString();
}

/** Only where the URL points: scheme, host and port ("https://hooks.example.com/…"). */
export function urlOrigin(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname === "/" && u.search === "" ? u.origin : `${u.origin}/…`;
  } catch {
    return REDACTED;
  }
}
