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

// Error texts: a receiver's answer can echo the request line ("Cannot POST /ingest?api_key=…"), a redirect its
// Location, fetch its URL. What a sink or webhook was configured with is known, so its secret values are replaced
// wherever they appear, in any spelling (as sent or percent-decoded); credentials in any URL the text holds
// (userinfo, parameters named like keys, tokens, signatures) go too, which also catches what nobody configured.

const REDACTED_TEXT = "[redacted]";
/** Shorter values are not worth guessing and would blank unrelated words ("1", "json"). */
const MIN_SECRET_LENGTH = 5;
const SECRET_NAME = "[\\w.-]*?(?:key|token|secret|pass|pwd|sig|auth|cred|session)[\\w.-]*";
const SECRET_PARAM = new RegExp(`([?&;]${SECRET_NAME}=)[^&#\\s"'<>]+`, "gi");
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

function spellings(value: string): string[] {
  const out = [value];
  try {
    out.push(decodeURIComponent(value.replace(/\+/g, " ")), decodeURIComponent(value));
  } catch {
    // not percent-encoded text: the value as it is
  }
  out.push(encodeURIComponent(value));
  return out;
}

/**
 * The credentials a configured URL and its headers hold, for redactSecrets: the userinfo, every query value, each
 * header value and its parts ("Bearer abc" → also "abc"); with `path`, long path segments too (a chat webhook's
 * secret is its path).
 */
export function secretsOf(url: string, headers: Record<string, string> = {}, opts: { path?: boolean } = {}): string[] {
  const found: string[] = [];
  try {
    const u = new URL(url);
    found.push(u.username, u.password);
    const raw = u.search.slice(1).split("&");
    for (const pair of raw) found.push(pair.slice(pair.indexOf("=") + 1));
    for (const value of u.searchParams.values()) found.push(value);
    if (opts.path) found.push(...u.pathname.split("/").filter((s) => s.length >= 12));
  } catch {
    // not a URL: nothing to take from it
  }
  for (const value of Object.values(headers)) found.push(value, ...value.split(/\s+/));
  const all = new Set(found.flatMap(spellings).filter((s) => s.length >= MIN_SECRET_LENGTH));
  return [...all].sort((a, b) => b.length - a.length);
}

/** `text` with each of `secrets` and any URL credentials in it replaced by "[redacted]" / "redacted". */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED_TEXT);
  return out.replace(USERINFO, `$1${REDACTED}@`).replace(SECRET_PARAM, `$1${REDACTED}`);
}
