import "server-only";
import { z } from "zod";
import { parseAddressList } from "./net/address-list";
import { parseTrustedProxies } from "./net/forwarded";
import { DEFAULT_GEOMETRY_LIMITS, type GeometryLimits } from "./spatial/geometry-limits";

/** REDRIVE_AUDIT_RETIRED_KEYS as a list: comma-separated, blanks ignored (base64 keys hold no comma). */
export function splitKeys(v: string | undefined): string[] {
  return (v ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");
}

// One parse of the environment for every entry point (server, CLI, worker, tests), so a typo in a variable
// fails loudly at start-up instead of deep inside a request.
const EnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .url()
    .refine((u) => /^postgres(ql)?:\/\//.test(u), "must be a postgres:// or postgresql:// URL")
    .optional(),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /** where the embedded PostgreSQL keeps its data when DATABASE_URL is unset */
  REDRIVE_DATA_DIR: z.string().default(".data"),
  REDRIVE_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  /** the embedded PostgreSQL's shared_buffers, e.g. 2GB; default a quarter of the machine's memory (128MB to 8GB) */
  REDRIVE_PG_SHARED_BUFFERS: z
    .string()
    .regex(/^[1-9]\d*(kB|MB|GB)$/, "must be a size PostgreSQL reads, e.g. 512MB or 2GB")
    .optional(),
  /** "1" to allow the seeded demo accounts in production */
  REDRIVE_DEMO: z.string().optional(),
  /** number of demo records `npm start` seeds into an empty database */
  REDRIVE_SEED_COUNT: z.coerce.number().int().min(0).default(2000),
  /**
   * on SIGTERM, how long the server keeps serving while GET /api/health/ready answers 503, so a load balancer
   * takes it out of rotation before it stops accepting connections
   */
  REDRIVE_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(300_000).default(2_000),
  /** on SIGTERM, how long requests in flight get to finish once the server stops accepting new ones */
  REDRIVE_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** "0" disables the in-process replay worker of the web server */
  REDRIVE_WORKER: z.enum(["0", "1"]).default("1"),
  /**
   * sign-in attempts allowed per client address per minute. Every attempt counts (better-auth's limiter runs
   * before the password is checked), so the default leaves room for a team behind one address switching
   * accounts, while keeping password guessing to a few dozen tries a minute.
   */
  REDRIVE_SIGNIN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(20),
  /**
   * proxies whose X-Forwarded-For the server believes (comma-separated addresses or CIDR blocks); unset: the
   * client is whoever the socket says, whatever forwarding headers it sends (lib/net/forwarded.ts)
   */
  REDRIVE_TRUSTED_PROXIES: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      try {
        parseTrustedProxies(v);
      } catch (e) {
        ctx.addIssue({ code: "custom", message: (e as Error).message });
      }
    }),
  REDRIVE_LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** signs session cookies; required in production, generated into REDRIVE_DATA_DIR/auth-secret otherwise */
  BETTER_AUTH_SECRET: z.string().min(32, "must be at least 32 characters (openssl rand -base64 32)").optional(),
  /** seals stored configuration secrets (source URLs); required in production, generated into REDRIVE_DATA_DIR/secret-key otherwise */
  REDRIVE_SECRET_KEY: z.string().min(32, "must be at least 32 characters (openssl rand -base64 32)").optional(),
  /**
   * the audit chain's HMAC key (lib/audit/keys.ts); required in production, generated into REDRIVE_DATA_DIR/audit-key
   * otherwise. Never stored in the database: with it elsewhere, a database superuser cannot re-chain the trail.
   */
  REDRIVE_AUDIT_KEY: z.string().min(32, "must be at least 32 characters (openssl rand -base64 32)").optional(),
  /** audit keys used before the current one (comma-separated): kept to verify their events and record the rotation */
  REDRIVE_AUDIT_RETIRED_KEYS: z
    .string()
    .optional()
    .refine((v) => v === undefined || splitKeys(v).every((k) => k.length >= 32), "each key must be at least 32 characters"),
  /** single sign-on: the OpenID Connect issuer (its /.well-known/openid-configuration is read); unset: no SSO */
  REDRIVE_OIDC_ISSUER: z.string().url().optional(),
  /**
   * "1": an http:// issuer is accepted in production too (a test provider on loopback); unset, production takes only
   * https:// issuers (lib/auth/sso-config.ts)
   */
  REDRIVE_OIDC_ALLOW_HTTP: z.enum(["0", "1"]).optional(),
  REDRIVE_OIDC_CLIENT_ID: z.string().min(1).optional(),
  REDRIVE_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** the provider's name on the sign-in button ("Sign in with …") */
  REDRIVE_OIDC_NAME: z.string().min(1).max(60).default("single sign-on"),
  REDRIVE_OIDC_SCOPES: z.string().default("openid profile email groups"),
  /** the claim holding the person's groups (a dotted path for a nested one, e.g. realm_access.roles) */
  REDRIVE_OIDC_GROUPS_CLAIM: z.string().min(1).default("groups"),
  /** group (or other claim value) to role, first match wins: redrive-admins=admin,ops=supervisor */
  /** (checked where it is used, lib/auth/sso-roles.ts, which this neutral module does not import) */
  REDRIVE_OIDC_ROLE_MAP: z.string().optional(),
  /** group to team, every match counts: parcels-ops=Parcels,fare-ops=Fares (checked in lib/auth/sso-teams.ts) */
  REDRIVE_OIDC_TEAM_MAP: z.string().optional(),
  /** the one admin who may still sign in with a password when an admin has turned password sign-in off */
  REDRIVE_BREAK_GLASS_ADMIN: z.string().email().optional(),
  /** the public URL of the dashboard; unset: taken from each request (so any port works) */
  BETTER_AUTH_URL: z.string().url().optional(),
  /** forensics: key globs whose values are masked (comma-separated; default card*,pan,token,account*) */
  REDRIVE_MASK_KEYS: z.string().optional(),
  /** forensics: days a replayed or purged record keeps its payload and raw envelope */
  REDRIVE_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(90),
  /** forensics: where alerts are POSTed when their rule names no webhook */
  REDRIVE_ALERT_WEBHOOK_URL: z.string().url().optional(),
  /** hosts the replay HTTP and PostGIS sinks and alert webhooks may call (lib/net/outbound.ts); unset: any */
  REDRIVE_OUTBOUND_HOSTS: z.string().optional(),
  /**
   * private, loopback and link-local addresses (or CIDR blocks) the replay HTTP and PostGIS sinks, alert webhooks and
   * the SSO issuer may reach anyway (lib/net/outbound-guard.ts); unset: none
   */
  REDRIVE_OUTBOUND_ALLOW_PRIVATE: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      try {
        parseAddressList(v);
      } catch (e) {
        ctx.addIssue({ code: "custom", message: (e as Error).message });
      }
    }),
  /** spatial: a geometry with more vertices is poison, never given to GEOS (lib/spatial/geometry-limits.ts) */
  REDRIVE_MAX_VERTICES: z.coerce.number().int().min(4).default(DEFAULT_GEOMETRY_LIMITS.maxVertices),
  /** spatial: a geometry with more parts (rings, lines, collection members) is poison, never given to GEOS */
  REDRIVE_MAX_PARTS: z.coerce.number().int().min(1).default(DEFAULT_GEOMETRY_LIMITS.maxParts),
  /** spatial: GeometryCollections nested deeper than this are poison, never given to GEOS */
  REDRIVE_MAX_GEOMETRY_NESTING: z.coerce.number().int().min(0).max(32).default(DEFAULT_GEOMETRY_LIMITS.maxNesting),
  /** a repair changing a geometry's area by more than this share (0.1 = 10%) must be acknowledged to approve it */
  REDRIVE_AREA_CHANGE_WARN: z.coerce.number().gt(0).max(10).default(0.1),
});

export type Env = z.infer<typeof EnvSchema>;

let cached: Env | undefined;

export function getEnv(source: NodeJS.ProcessEnv = process.env): Env {
  if (source === process.env && cached) return cached;
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid environment: ${detail}`);
  }
  if (source === process.env) cached = parsed.data;
  return parsed.data;
}

/** The geometry limits this process applies before GEOS (ingest, edits, replay re-validation). */
export function geometryLimits(env: Env = getEnv()): GeometryLimits {
  return { maxVertices: env.REDRIVE_MAX_VERTICES, maxParts: env.REDRIVE_MAX_PARTS, maxNesting: env.REDRIVE_MAX_GEOMETRY_NESTING };
}
