import "server-only";
import { parse } from "pg-connection-string";
import type pg from "pg";
import { AppError } from "../../../errors/app-error";
import { getEnv } from "../../../env";
import { outboundAllowed } from "../../../net/outbound";
import { outboundHostsRefusal, refusedBy } from "../../../net/outbound-guard";
import { outboundSocket } from "../../../net/outbound-socket";

// How the PostGIS sink reaches a team's database: one function, postgisConnection(url), gives the `pg` settings
// every client and pool to that target is made from (the batch check, `redrive sink check`, the sink's pool).
//
// The URL is read by pg-connection-string, the parser `pg` itself uses, so the hosts judged are the ones the driver
// would use: the URL's host (a comma-separated list included), `host=` and `hostaddr=` query parameters, a
// percent-encoded socket path. Query parameters that read the server's files (sslcert, sslkey, sslrootcert) or
// set the session (options) are refused, and the settings are built field by field rather than handed over as a
// connection string, whose parameters would override ours. The socket itself is the outbound one
// (lib/net/outbound-socket.ts): names resolved and judged at connect time, the judged address connected to.

/** Query parameters a sink URL may carry; `host`, `hostaddr` and `port` are read as hosts and port. */
const ALLOWED_PARAMS = new Set(["sslmode", "ssl", "host", "hostaddr", "port", "application_name", "connect_timeout"]);

export interface PostgisUrlParts {
  hosts: string[];
  port: number;
  user: string | undefined;
  password: string | undefined;
  database: string | undefined;
  ssl: pg.ClientConfig["ssl"];
}

/** The parts of a sink URL `pg` would connect with; a string says why the URL cannot be used. Pure. */
export function postgisUrlParts(url: string): PostgisUrlParts | string {
  const query = url.split("#")[0]?.split("?").slice(1).join("?") ?? "";
  for (const key of new URLSearchParams(query).keys()) {
    if (!ALLOWED_PARAMS.has(key))
      return `the query parameter ${JSON.stringify(key)} is not supported (allowed: ${[...ALLOWED_PARAMS].join(", ")})`;
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(url);
  } catch {
    return "must be a postgresql://user:password@host:port/database URL";
  }
  const hosts = [parsed.host ?? "", ...(typeof parsed.hostaddr === "string" ? [parsed.hostaddr] : [])].flatMap((h) => h.split(","));
  const port = parsed.port ? Number(parsed.port) : 5432;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return "names no valid port";
  return {
    hosts: hosts.map((h) => h.trim()),
    port,
    user: parsed.user || undefined,
    password: parsed.password || undefined,
    database: parsed.database || undefined,
    ssl: parsed.ssl as pg.ClientConfig["ssl"],
  };
}

/** What a refused or unreadable target answers: the same words before any connection, whichever the cause. */
export async function postgisUrlRefusal(url: string): Promise<string | null> {
  const parts = postgisUrlParts(url);
  if (typeof parts === "string") return parts;
  for (const host of parts.hosts) {
    const named = `postgresql://${host.includes(":") ? `[${host}]` : host}:${parts.port}`;
    if (!host.startsWith("/") && !outboundAllowed(named, getEnv().REDRIVE_OUTBOUND_HOSTS)) {
      return `host ${host}:${parts.port} is not in REDRIVE_OUTBOUND_HOSTS`;
    }
  }
  const why = await outboundHostsRefusal(parts.hosts);
  if (why) return why;
  // node-postgres connects to one host; libpq would try a list in turn, which a sink does not offer.
  if (parts.hosts.length > 1) return `names ${parts.hosts.length} hosts; give one host`;
  return null;
}

/** The `pg` settings for a client or pool to `url`, its socket under the outbound rule. */
export function postgisConnection(url: string): pg.ClientConfig {
  const parts = postgisUrlParts(url);
  if (typeof parts === "string") throw new AppError("validation_failed", `sink.url: ${parts}`);
  return {
    host: parts.hosts[0],
    port: parts.port,
    user: parts.user,
    // None given is an empty one: pg would otherwise send this server's own PGPASSWORD to the target.
    password: parts.password ?? (() => ""),
    database: parts.database,
    ssl: parts.ssl,
    stream: () => outboundSocket(),
  };
}

/**
 * What batch creation says when the target's connection fails: a refusal in its own words, anything else only
 * that the target could not be reached. The server's text (an unknown database, a failed password, a closed port)
 * would tell a supervisor what lies behind an address they could not reach themselves.
 */
export function unreachableMessage(err: unknown): string {
  return refusedBy(err)?.message ?? "could not reach the target (no connection, or the server refused the sign-in or the database)";
}
