import { z } from "zod";

// What a RabbitMQ source is configured with: the URL (stored encrypted, checked here) and the dead-letter
// queue to drain. Pure, so the source form validates with the same rules the connector runs by.

/** AMQP short strings (queue names) hold at most 255 bytes of UTF-8. */
const SHORTSTR_BYTES = 255;

export const rabbitmqOptionsSchema = z.strictObject({
  queue: z
    .string({ error: "must be the name of the dead-letter queue" })
    .min(1, "must be the name of the dead-letter queue")
    .refine((q) => q.trim() === q, "must not start or end with white space (RabbitMQ would take it as part of the name)")
    .refine(
      (q) => Buffer.byteLength(q, "utf8") <= SHORTSTR_BYTES,
      `must be at most ${SHORTSTR_BYTES} bytes (AMQP's limit for a queue name)`,
    ),
});

export type RabbitmqOptions = z.output<typeof rabbitmqOptionsSchema>;

export interface RabbitmqUrl {
  protocol: "amqp" | "amqps";
  hostname: string;
  port: number;
  /** decoded; "/" when the URL names none */
  vhost: string;
  username: string | null;
  /** the URL with its password and query values hidden, for messages and logs */
  display: string;
}

export type ParsedRabbitmqUrl = { ok: true; url: RabbitmqUrl } | { ok: false; message: string };

/**
 * Checks an amqp(s):// URL the way amqplib will read it (RabbitMQ's URI spec: the one path segment is the
 * virtual host, percent-encoded). The message names what is wrong and never repeats the password.
 */
export function parseRabbitmqUrl(raw: string): ParsedRabbitmqUrl {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return { ok: false, message: "is not a URL (expected amqp://user:password@host:5672/vhost)" };
  }
  const scheme = u.protocol.replace(/:$/, "");
  if (scheme !== "amqp" && scheme !== "amqps") {
    return { ok: false, message: `must start with amqp:// or amqps:// (got ${scheme}://)` };
  }
  const hostname = u.hostname.replace(/^\[|\]$/g, "");
  if (hostname === "") return { ok: false, message: "names no host (expected amqp://user:password@host:5672/vhost)" };
  const path = u.pathname.replace(/^\//, "");
  if (path.includes("/")) {
    return {
      ok: false,
      message: `has more than one path segment ("/${path}"): the path is the virtual host; write a "/" inside it as %2F`,
    };
  }
  let vhost: string;
  try {
    vhost = path === "" ? "/" : decodeURIComponent(path);
  } catch {
    return { ok: false, message: "has a virtual host that is not valid percent-encoding" };
  }
  const port = u.port === "" ? (scheme === "amqp" ? 5672 : 5671) : Number(u.port);
  return {
    ok: true,
    url: {
      protocol: scheme,
      hostname,
      port,
      vhost,
      username: u.username === "" ? null : safeDecode(u.username),
      display: displayUrl(u),
    },
  };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function displayUrl(u: URL): string {
  const copy = new URL(u.toString());
  if (copy.password) copy.password = "***";
  for (const key of new Set(copy.searchParams.keys())) copy.searchParams.set(key, "***");
  return copy.toString();
}
