import { AppError } from "../errors/app-error";

// Hosts Redrive may call on an operator's word: the replay HTTP sink (a supervisor's, approved by another) and
// alert webhooks (a supervisor's). Unset, any host goes; set, only the hosts it names. Comma-separated host names,
// "*.example.com" for subdomains, an optional ":port". Whatever the list says, the addresses a host resolves to are
// judged again on every connection (lib/net/outbound-guard.ts: loopback, private and link-local refused unless
// REDRIVE_OUTBOUND_ALLOW_PRIVATE allows them). Pure.

/** Whether `url`'s host is allowed by `allowList` (the REDRIVE_OUTBOUND_HOSTS value; undefined or "" allows all). */
export function outboundAllowed(url: string, allowList: string | undefined): boolean {
  const entries = (allowList ?? "")
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (entries.length === 0) return true;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const host = u.hostname.toLowerCase();
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return entries.some((entry) => {
    const [pattern, wanted] = entry.split(/:(?=\d+$)/) as [string, string | undefined];
    if (wanted !== undefined && wanted !== port) return false;
    return pattern.startsWith("*.") ? host.endsWith(pattern.slice(1)) : host === pattern;
  });
}

/** Why the URL's host is not allowed, or null when it is. */
export function outboundHostRefusal(url: string, allowList: string | undefined): string | null {
  return outboundAllowed(url, allowList) ? null : `host ${new URL(url).host} is not in REDRIVE_OUTBOUND_HOSTS`;
}

/** Throws a 422 naming `path` when the URL's host is not allowed. */
export function checkOutbound(url: string, allowList: string | undefined, path: string): void {
  const message = outboundHostRefusal(url, allowList);
  if (message) throw new AppError("validation_failed", `${path}: ${message}`, { issues: [{ path, message }] });
}

/**
 * Whether `url` carries a user name or password (`http://user:pass@host/`): fetch refuses to build a request
 * from such a URL, so a sink or webhook configured with one would fail on every send, long after it was saved.
 */
export function hasUrlCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== "" || u.password !== "";
  } catch {
    return false;
  }
}
