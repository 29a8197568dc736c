// Changing a source's connection without showing its secrets: the stored URL's userinfo (user name and password;
// SQS keeps its access key there) is never served, so an edit states only what it replaces. A new URL without
// userinfo keeps the stored one; `username` / `password` replace just that part. Works on every type's URL,
// Kafka's broker list included (no WHATWG host), by the authority's last '@'. Pure.

export interface CredentialChange {
  url?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
}

const AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)(?:([^/?#]*)@)?(.*)$/s;

interface Parts {
  scheme: string;
  user: string | null;
  password: string | null;
  rest: string;
}

function partsOf(url: string): Parts | null {
  const m = AUTHORITY.exec(url);
  if (!m) return null;
  const [, scheme = "", userinfo, rest = ""] = m;
  if (userinfo === undefined) return { scheme, user: null, password: null, rest };
  const colon = userinfo.indexOf(":");
  return colon < 0
    ? { scheme, user: userinfo, password: null, rest }
    : { scheme, user: userinfo.slice(0, colon), password: userinfo.slice(colon + 1), rest };
}

function urlOf(p: Parts): string {
  if (p.user === null && p.password === null) return `${p.scheme}${p.rest}`;
  return `${p.scheme}${p.user ?? ""}${p.password === null ? "" : `:${p.password}`}@${p.rest}`;
}

/** Whether the URL carries a user name or password. */
export function hasCredentials(url: string): boolean {
  const p = partsOf(url);
  return p !== null && (p.user !== null || p.password !== null);
}

/**
 * The URL to store after `change`: the new URL (or the stored one), with the stored user name and password kept
 * where the new URL has none, then `username` / `password` (plain text, percent-encoded here) put in; an empty
 * `password` removes it. What matches no `scheme://` form is returned as it is, for the URL rules to refuse.
 */
export function changedUrl(stored: string, change: CredentialChange): string {
  const next = change.url ?? stored;
  const parts = partsOf(next);
  if (!parts) return next;
  const old = partsOf(stored);
  if (change.url !== undefined && parts.user === null && parts.password === null && old) {
    parts.user = old.user;
    parts.password = old.password;
  }
  if (change.username !== undefined) parts.user = change.username === "" ? null : encodeURIComponent(change.username);
  if (change.password !== undefined) parts.password = change.password === "" ? null : encodeURIComponent(change.password);
  if (parts.user === null && parts.password !== null) parts.user = "";
  return urlOf(parts);
}

/** Which secrets a change replaces, for the audit trail (which never holds them). */
export function replacedSecrets(stored: string, change: CredentialChange): string[] {
  const before = partsOf(stored);
  const after = partsOf(changedUrl(stored, change));
  const out: string[] = [];
  if (before?.user !== after?.user) out.push("username");
  if (before?.password !== after?.password) out.push("password");
  return out;
}
