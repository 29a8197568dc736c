import { z } from "zod";

// What a Kafka source is configured with: the dead-letter topic, Redrive's consumer group on it, and the brokers in
// the URL (`kafka://[user:password@]host:port[,host:port…]`, `kafkas://` for TLS). Pure and client-safe, so the
// source form validates with the rules the server applies.

// Kafka's own rule for topic names (kafka.common.internals.Topic): 1–249 of [a-zA-Z0-9._-], not "." or "..".
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;

export const kafkaOptionsSchema = z.strictObject({
  /** the dead-letter topic Redrive drains */
  topic: z
    .string({ error: "topic must be the dead-letter topic's name (a string)" })
    .regex(TOPIC, "topic must be 1–249 of letters, digits, '.', '_' or '-'")
    .refine((t) => t !== "." && t !== "..", "topic must not be '.' or '..'"),
  /** Redrive's consumer group: its committed offsets are how far Redrive has stored */
  group: z
    .string({ error: "group must be the consumer group's name (a string)" })
    .min(1, "group must not be empty")
    .max(255, "group must be at most 255 characters")
    .default("redrive"),
});

export type KafkaOptions = z.output<typeof kafkaOptionsSchema>;

export const SASL_MECHANISMS = ["plain", "scram-sha-256", "scram-sha-512"] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export interface KafkaTarget {
  /** "host:port" each, as the client is given them */
  brokers: string[];
  tls: boolean;
  sasl: { mechanism: SaslMechanism; username: string; password: string } | null;
  /** scheme and brokers, never the userinfo: safe to show and log */
  display: string;
  /** secrets to scrub from any message that might echo them */
  secrets: string[];
}

export type ParsedKafkaUrl = { ok: true; target: KafkaTarget } | { ok: false; message: string };

const DEFAULT_PORT = 9092;
// WHATWG URL cannot hold a broker list ("a:9092,b:9092" is no port), so the URL is split by hand.
const KAFKA_URL = /^(kafkas?):\/\/(?:([^@/?#]*)@)?([^/?#@]+)\/?(?:\?([^#]*))?$/;
const BROKER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;

function decoded(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/**
 * Checks a source URL: scheme, every broker's host and port, the SASL user and password (PLAIN unless
 * `?sasl=scram-sha-256|scram-sha-512`). The message names what is wrong and never repeats the userinfo.
 */
export function parseKafkaUrl(url: string): ParsedKafkaUrl {
  const m = KAFKA_URL.exec(url.trim());
  if (!m) {
    return /^kafkas?:\/\//i.test(url.trim())
      ? { ok: false, message: "is not a valid Kafka URL (expected kafka://[user:password@]host:port[,host:port])" }
      : { ok: false, message: "must use the kafka:// or kafkas:// scheme (kafka://[user:password@]host:port[,host:port])" };
  }
  const [, scheme = "kafka", userinfo, hostList = "", query] = m;
  const brokers: string[] = [];
  for (const part of hostList.split(",")) {
    const b = BROKER.exec(part.trim());
    const port = b?.[2] === undefined ? DEFAULT_PORT : Number(b[2]);
    if (!b?.[1] || port < 1 || port > 65535) return { ok: false, message: `names a broker that is not host:port ("${part.trim()}")` };
    brokers.push(`${b[1]}:${port}`);
  }
  const display = `${scheme}://${brokers.join(",")}`;

  let mechanism: SaslMechanism = "plain";
  if (query !== undefined && query !== "") {
    const params = new URLSearchParams(query);
    for (const key of params.keys()) {
      if (key !== "sasl") return { ok: false, message: `has an unknown parameter "${key}" (only ?sasl=${SASL_MECHANISMS.join("|")})` };
    }
    const asked = params.get("sasl")?.toLowerCase() ?? "";
    if (!(SASL_MECHANISMS as readonly string[]).includes(asked)) {
      return { ok: false, message: `asks for SASL mechanism "${asked}"; use one of ${SASL_MECHANISMS.join(", ")}` };
    }
    mechanism = asked as SaslMechanism;
  }

  let sasl: KafkaTarget["sasl"] = null;
  const secrets: string[] = [url];
  if (userinfo !== undefined && userinfo !== "") {
    const colon = userinfo.indexOf(":");
    const rawUser = colon < 0 ? userinfo : userinfo.slice(0, colon);
    const rawPass = colon < 0 ? "" : userinfo.slice(colon + 1);
    const username = decoded(rawUser);
    const password = decoded(rawPass);
    if (username === null || password === null) return { ok: false, message: "has a malformed %-escape in its user name or password" };
    if (username === "" || password === "")
      return { ok: false, message: "needs both a user name and a password for SASL (user:password@)" };
    sasl = { mechanism, username, password };
    secrets.push(rawPass, password);
  } else if (query) {
    return { ok: false, message: "asks for a SASL mechanism but gives no user:password@" };
  }
  return { ok: true, target: { brokers, tls: scheme === "kafkas", sasl, display, secrets: secrets.filter((s) => s.length > 0) } };
}

export function isKafkaUrl(url: string): boolean {
  return /^kafkas?:\/\//i.test(url.trim());
}

/** The URL as shown: the userinfo replaced, the mechanism kept (it is not a secret). */
export function redactKafkaUrl(url: string): string {
  const m = KAFKA_URL.exec(url.trim());
  if (!m) return "redacted";
  const [, scheme, userinfo, hosts, query] = m;
  return `${scheme}://${userinfo ? "redacted@" : ""}${hosts}${query ? `?${query}` : ""}`;
}
