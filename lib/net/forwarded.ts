import type { IncomingHttpHeaders } from "node:http";
import type { BlockList } from "node:net";
import { inAddressList, parseAddressList } from "./address-list";

// Who is the client? Next's server keeps an X-Forwarded-For the client sent and only fills it in from the socket
// when absent, and better-auth's sign-in limiter keys on that header: a client could name a new address per
// request and guess passwords without limit. Our server (scripts/serve.ts) rewrites the forwarding headers
// before Next sees them: from a peer that is not a trusted proxy they are replaced by what the socket says;
// a trusted proxy's (REDRIVE_TRUSTED_PROXIES) are kept, with the proxy's own address appended, and better-auth
// walks them from the right past the trusted proxies (advanced.ipAddress.trustedProxies).

const FORWARDING = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "forwarded", "x-real-ip"] as const;

/** `::ffff:192.0.2.1` → `192.0.2.1`: the socket reports IPv4 clients of a dual-stack server this way. */
export function plainAddress(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? (m[1] as string) : address;
}

/** Parses `10.0.0.1, 10.1.0.0/16, fd00::/8`; throws naming the entry that is neither an address nor a CIDR block. */
export function parseTrustedProxies(spec: string | undefined): { entries: string[]; list: BlockList } {
  return parseAddressList(spec);
}

function isTrusted(list: BlockList, address: string): boolean {
  return inAddressList(list, address);
}

/**
 * Rewrites `headers` in place for a request that came from `peer` (the socket's remote address). Returns true
 * when it dropped forwarding headers from an untrusted peer (a proxy nobody listed, or a client faking them).
 */
export function sanitizeForwarding(headers: IncomingHttpHeaders, peer: string | undefined, trusted: BlockList): boolean {
  const from = peer ? plainAddress(peer) : undefined;
  if (from && isTrusted(trusted, from)) {
    const chain = headers["x-forwarded-for"];
    const prior = (Array.isArray(chain) ? chain.join(", ") : chain)?.trim();
    headers["x-forwarded-for"] = prior ? `${prior}, ${from}` : from;
    return false;
  }
  const dropped = FORWARDING.some((name) => headers[name] !== undefined);
  for (const name of FORWARDING) delete headers[name];
  if (from) headers["x-forwarded-for"] = from;
  return dropped;
}
