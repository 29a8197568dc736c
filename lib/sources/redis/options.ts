import { z } from "zod";

// Options of a Redis Streams source. Without `dlqStream` Redrive claims the dead entries itself from the
// application's group (entries pending longer than `minIdleMs` that reached `maxDeliveries`); with it, producers
// already copy dead entries to `dlqStream` and Redrive reads that stream through its own group.

const name = (what: string) => z.string({ error: `must be the ${what} (a string)` }).min(1, `must not be empty`);

export const redisOptionsSchema = z
  .strictObject({
    /** the application's stream: where claim mode reads and where dead letters are published back by default */
    stream: name("application's stream key"),
    /** the application's consumer group on `stream` */
    group: name("application's consumer group"),
    minIdleMs: z.number().int("must be a whole number of milliseconds").min(0, "must be 0 or more").default(60_000),
    maxDeliveries: z.number().int("must be a whole number").min(1, "must be at least 1").default(3),
    /** Redrive's consumer name, in `group` (claim mode) or `dlqGroup` (dlqStream mode) */
    consumer: name("consumer name").default("redrive"),
    dlqStream: name("dead-letter stream key").optional(),
    dlqGroup: name("consumer group Redrive reads dlqStream with").default("redrive"),
    /** the entry field holding the message body */
    field: name("body field name").default("body"),
    /** prefix of the keys that remember which idempotency keys were already published back */
    gatePrefix: name("gate key prefix").default("redrive:gate:"),
  })
  .refine((o) => o.dlqStream !== o.stream, {
    path: ["dlqStream"],
    message: "must differ from stream (Redrive would read back what it publishes)",
  });

export type RedisOptions = z.infer<typeof redisOptionsSchema>;

export interface RedisTarget {
  /** scheme, host, port and database only: safe to show and log */
  display: string;
  tls: boolean;
  /** secrets to scrub from any message that might echo them */
  secrets: string[];
}

export type ParsedRedisUrl = { ok: true; target: RedisTarget } | { ok: false; message: string };

/**
 * Checks a source URL the way node-redis reads it (`redis[s]://[[user][:password]@]host[:port][/db]`). The
 * message names what is wrong and never repeats the URL, which may hold a password.
 */
export function parseRedisUrl(url: string): ParsedRedisUrl {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, message: "is not a valid URL (expected redis://[user:password@]host[:port][/db])" };
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") {
    return { ok: false, message: `must use the redis:// or rediss:// scheme, not ${u.protocol}//` };
  }
  if (!u.hostname) return { ok: false, message: "names no host (expected redis://host:port)" };
  const db = u.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db)) {
    return { ok: false, message: `has a path that is not a database number (expected /0, /1, …)` };
  }
  if (u.search) return { ok: false, message: "has query parameters, which the Redis client ignores" };
  const password = decoded(u.password);
  if (password === null || decoded(u.username) === null) {
    return { ok: false, message: "has a malformed %-escape in its user name or password" };
  }
  const secrets = [u.password, password, url].filter((s) => s.length > 0);
  const port = u.port || "6379";
  return {
    ok: true,
    target: { display: `${u.protocol}//${u.hostname}:${port}/${db || "0"}`, tls: u.protocol === "rediss:", secrets },
  };
}

/** The same check for a form or an API body: a zod string whose issue is parseRedisUrl's message. */
export const redisUrlSchema = z.string().superRefine((url, ctx) => {
  const parsed = parseRedisUrl(url);
  if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.message });
});

function decoded(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}
