// The Content Security Policy. Everything is served from this origin: no remote fonts, tiles or scripts. Pages get
// a fresh nonce per request (proxy.ts) and only scripts carrying it run, with 'strict-dynamic' passing the trust on
// to the chunks Next's runtime loads — so markup an attacker got into a page could not run even if escaping failed.
// Other answers (the API, assets) carry no script at all. MapLibre needs blob: workers and data:/blob: images;
// styles stay 'unsafe-inline' (React's style attributes and MapLibre's inline styles), which runs no code.
// `unsafe-eval` only in development (React's dev tooling), never in production.

const COMMON = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "child-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
];

const devEval = (dev: boolean) => (dev ? " 'unsafe-eval'" : "");

/** A page's policy: its scripts run only with this request's nonce. */
export function pagePolicy(nonce: string, dev: boolean): string {
  return [`script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${devEval(dev)}`, ...COMMON].join("; ");
}

/** Everything else (API answers, assets): no inline script at all. */
export function staticPolicy(dev: boolean): string {
  return [`script-src 'self'${devEval(dev)}`, ...COMMON].join("; ");
}

/** The nonce a page's policy allows, for a script the page renders itself (the theme script in the root layout). */
export function policyNonce(policy: string | null): string | undefined {
  return policy ? /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1] : undefined;
}
