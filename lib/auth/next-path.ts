// Where to go after signing in. Only same-site paths are accepted, so /sign-in?next=… cannot be used as an
// open redirect: "/x?y" yes; "//evil.example", "/\evil.example", "https://…" no.

export function safeNextPath(value: string | null | undefined): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 0x20 || value.charCodeAt(i) === 0x7f) return "/";
  if (value === "/sign-in" || value.startsWith("/sign-in?") || value.startsWith("/sign-in/")) return "/";
  // A Location header takes ASCII only: "/。x" (a decoded query) made the redirect itself fail with a 500.
  try {
    return value.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  } catch {
    return "/"; // a lone surrogate cannot be encoded
  }
}

/** Set by proxy.ts on page requests: the path and query, so a server component can send the user back to it. */
export const PATH_HEADER = "x-redrive-path";
