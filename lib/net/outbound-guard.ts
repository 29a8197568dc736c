import "server-only";
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { lookup as dnsLookupAsync } from "node:dns/promises";
import { isIP, type BlockList } from "node:net";
import { Agent, buildConnector, fetch as undiciFetch, request as undiciRequest, type Dispatcher } from "undici";
import { AppError } from "../errors/app-error";
import { getEnv } from "../env";
import { inAddressList, parseAddressList } from "./address-list";
import { reachedAddress, restrictedAddress } from "./address-class";
import { outboundHostRefusal } from "./outbound";

// Where Redrive may connect on a user's word: the replay HTTP and PostGIS sinks, alert webhooks, the SSO issuer's
// discovery and keys (outbound-connectors.ts lists them). A supervisor or admin chooses those addresses, and what
// they answer comes back to people: pointed at loopback, the private network or the cloud metadata service
// (169.254.169.254), the server would reach for them what they cannot reach themselves. So those addresses, and
// local socket paths, are refused unless an operator lists them in REDRIVE_OUTBOUND_ALLOW_PRIVATE. Each target is
// checked before any connection (outboundHostsRefusal: the same words whichever connector meets it) and again on
// the connection itself (guardedLookup: the address the socket is about to use, after DNS), so a name that resolved
// to a public address then and to 127.0.0.1 now (DNS rebinding) is refused when it matters. The HTTP pool below,
// outbound-socket.ts (raw TCP) and outbound-scope.ts (libraries that use the global fetch) all judge through
// refusal().

export const ALLOW_PRIVATE_VARIABLE = "REDRIVE_OUTBOUND_ALLOW_PRIVATE";

/** A connection refused by the outbound rule; its message says why and how to allow it. */
export class OutboundRefusedError extends Error {
  override name = "OutboundRefusedError";
  readonly code = "ERR_OUTBOUND_REFUSED";
}

export interface OutboundPolicy {
  /** private, loopback or link-local addresses an operator allowed */
  allowed: BlockList;
}

let cachedPolicy: { spec: string | undefined; policy: OutboundPolicy } | null = null;

export function outboundPolicy(): OutboundPolicy {
  const spec = getEnv().REDRIVE_OUTBOUND_ALLOW_PRIVATE;
  if (cachedPolicy && cachedPolicy.spec === spec) return cachedPolicy.policy;
  const policy: OutboundPolicy = { allowed: parseAddressList(spec).list };
  cachedPolicy = { spec, policy };
  return policy;
}

/**
 * Why a connection to `address` (reached through the name `host`) is refused, or null when it may go: the address
 * is on the internet, or an operator allowed it.
 */
export function refusal(host: string, address: string, policy: OutboundPolicy): string | null {
  const why = restrictedAddress(address);
  if (!why) return null;
  const plain = reachedAddress(address);
  if (inAddressList(policy.allowed, plain) || inAddressList(policy.allowed, address.replace(/%.*$/, ""))) return null;
  const bare = host.replace(/^\[|\]$/g, "");
  const allow = `an admin may allow it with ${ALLOW_PRIVATE_VARIABLE}=${plain}`;
  return bare === address || bare === plain
    ? `refused: ${address} is ${why}; ${allow}`
    : `refused: ${bare} resolves to ${address}, ${why}; ${allow}`;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net.connect that resolves as usual and refuses when any address it found is refused. */
export function guardedLookup(policy: OutboundPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      // Every address, not the first: a connection may fall back to the next one (happy eyeballs).
      for (const a of addresses) {
        const why = refusal(hostname, a.address, policy);
        if (why) return callback(new OutboundRefusedError(why), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), []);
      callback(null, first.address, first.family);
    });
  };
}

let cachedAgent: { policy: OutboundPolicy; agent: Agent } | null = null;

/** The connection pool sinks and webhooks use: names through guardedLookup, address literals checked first. */
export function outboundAgent(policy: OutboundPolicy = outboundPolicy()): Agent {
  if (cachedAgent?.policy === policy) return cachedAgent.agent;
  const connect = buildConnector({ lookup: guardedLookup(policy) });
  const agent = new Agent({
    connect: (opts, callback) => {
      // net.connect skips `lookup` for an address literal: judge it here.
      const host = opts.hostname.replace(/^\[|\]$/g, "");
      const why = restrictedAddress(host) ? refusal(host, host, policy) : null;
      if (why) return callback(new OutboundRefusedError(why), null);
      connect(opts, callback);
    },
  });
  cachedAgent = { policy, agent };
  return agent;
}

/** fetch through the guarded pool; a refused connection rejects with an OutboundRefusedError as its cause. */
export function outboundFetch(url: string, init: NonNullable<Parameters<typeof undiciFetch>[1]>): ReturnType<typeof undiciFetch> {
  return undiciFetch(url, { ...init, dispatcher: outboundAgent() });
}

/**
 * undici's `request` through the guarded pool: the replay HTTP sink's client, well ahead of fetch's rate on keep-alive
 * connections (bench:replay's client loops compare them). It follows no redirect (request has none without undici's redirect
 * interceptor, which this pool does not install), and a refused connection rejects with the OutboundRefusedError
 * itself rather than as a cause.
 */
export function outboundRequest(
  url: string,
  options: Omit<NonNullable<Parameters<typeof undiciRequest>[1]>, "dispatcher">,
): Promise<Dispatcher.ResponseData<unknown>> {
  return undiciRequest(url, { ...options, dispatcher: outboundAgent() });
}

/** The refusal inside a failed fetch (its cause), if that is why it failed. */
export function refusedBy(err: unknown): OutboundRefusedError | null {
  if (err instanceof OutboundRefusedError) return err;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof OutboundRefusedError ? cause : null;
}

const RESOLVE_TIMEOUT_MS = 3_000;

/** `db.example.com`, `[::1]`, `/run/postgresql`: a local socket path is never a target Redrive may connect to. */
export function isSocketPath(host: string): boolean {
  return host.startsWith("/") || host.startsWith("@") || /^[A-Za-z]:[\\/]/.test(host);
}

/** The addresses `host` has now (the address itself for a literal); none when it does not resolve in time. */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  const found = await Promise.race([
    dnsLookupAsync(host, { all: true }).catch(() => []),
    new Promise<LookupAddress[]>((resolve) => setTimeout(() => resolve([]), RESOLVE_TIMEOUT_MS).unref()),
  ]);
  return found.map((a) => a.address);
}

/**
 * Why one of `hosts` may not be connected to, or null: a socket path, or an address (what a name resolves to now)
 * that is loopback, private or link-local and not allowed. Every connector checks its targets here before it
 * connects, so a refused target is answered before any connection, in the same words whichever connector it is.
 */
export async function outboundHostsRefusal(hosts: readonly string[], policy: OutboundPolicy = outboundPolicy()): Promise<string | null> {
  for (const raw of hosts) {
    const host = raw.replace(/^\[|\]$/g, "");
    if (host === "") return "refused: the target names no host";
    if (isSocketPath(host)) return `refused: ${host} is a local socket path, which no sink or webhook may use`;
    for (const address of await addressesOf(host)) {
      const why = refusal(host, address, policy);
      if (why) return why;
    }
  }
  return null;
}

/** Throws the 422 naming `path` when one of `hosts` is refused (outboundHostsRefusal). */
export async function checkOutboundHosts(hosts: readonly string[], path: string): Promise<void> {
  const why = await outboundHostsRefusal(hosts);
  if (why) throw new AppError("validation_failed", `${path}: ${why}`, { issues: [{ path, message: why }] });
}

/**
 * Checks a sink or webhook URL when it is saved: the host allow-list (REDRIVE_OUTBOUND_HOSTS), then the addresses
 * its host has now. A 422 naming `path` says why. A name that does not resolve passes (the send will say so); the
 * connection is checked again every time it is made.
 */
export async function checkOutboundTarget(url: string, path: string): Promise<void> {
  const why = await outboundTargetRefusal(url);
  if (why) throw new AppError("validation_failed", `${path}: ${why}`, { issues: [{ path, message: why }] });
}

/** Why `url` may not be called (checkOutboundTarget's rules), or null. */
export async function outboundTargetRefusal(url: string): Promise<string | null> {
  return outboundHostRefusal(url, getEnv().REDRIVE_OUTBOUND_HOSTS) ?? (await outboundHostsRefusal([new URL(url).hostname]));
}
