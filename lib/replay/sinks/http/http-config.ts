import { z } from "zod";
import { hasUrlCredentials } from "../../../net/outbound";
import type { SinkConfigPlug } from "../sink-plug";
import { httpForm } from "./http-form";

// The HTTP sink's configuration: where to POST, extra headers, timeout, requests in flight. Pure and client-safe.

/**
 * Headers the HTTP sink sets itself, and the connection-level ones its client (undici's request) refuses to send
 * (keep-alive, upgrade, expect): a batch may not set them.
 */
const RESERVED_HEADERS = new Set([
  "idempotency-key",
  "content-type",
  "content-length",
  "host",
  "connection",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "expect",
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const HttpSinkSchema = z.strictObject({
  type: z.literal("http"),
  url: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .max(2000)
    .refine((u) => !hasUrlCredentials(u), {
      error: "must not contain a user name or password (fetch refuses them; send credentials in a header)",
    }),
  headers: z
    // A value fetch's Headers refuse (CR, LF, NUL; a character above U+00FF, as header values are bytes) would make
    // every request fail after the batch started.
    .record(
      z.string().regex(HEADER_NAME, "must be an HTTP header name"),
      z
        .string()
        .max(4096)
        .regex(/^[^\r\n\0]*$/, "must not contain CR, LF or NUL")
        .regex(/^[\u0000-\u00ff]*$/, "must hold only Latin-1 characters (U+0000–U+00FF); fetch refuses others"),
    )
    .refine((h) => Object.keys(h).every((k) => !RESERVED_HEADERS.has(k.toLowerCase())), {
      error: `may not set ${[...RESERVED_HEADERS].join(", ")} (the sink sets them or its client refuses them)`,
    })
    .optional(),
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** requests in flight per worker lane */
  concurrency: z.number().int().min(1).max(64).default(4),
});
export type HttpSinkConfig = z.output<typeof HttpSinkSchema>;

/** As readers see it: header values are masked (they may carry credentials), the URL's secrets redacted. */
export interface HttpSinkView {
  type: "http";
  url: string;
  headers: string[];
  timeoutMs: number;
  concurrency: number;
}

export const httpConfigPlug: SinkConfigPlug<"http", typeof HttpSinkSchema, HttpSinkView> = {
  type: "http",
  label: "HTTP",
  help: "HTTP: each record is POSTed to the URL with its original key in the Idempotency-Key header; the receiver deduplicates.",
  cliHelp: "http",
  urlHelp: "where to POST",
  schema: HttpSinkSchema,
  form: httpForm,
  flags: [
    { flag: "--header <Name: value>", field: "headers", help: "extra header (repeatable)", headers: true },
    { flag: "--timeout-ms <ms>", field: "timeoutMs", help: "request timeout" },
    { flag: "--concurrency <n>", field: "concurrency", help: "requests in flight per worker lane" },
  ],
  fromFlags: (o, num) => ({
    type: "http",
    url: o.url,
    headers: o.header,
    timeoutMs: num(o.timeoutMs, "--timeout-ms"),
    concurrency: num(o.concurrency, "--concurrency"),
  }),
  describe: {
    cli: (v) => `http ${v.url}`,
    short: (v) => `HTTP ${new URL(v.url).host}`,
    detail: (v) =>
      `HTTP POST ${v.url} (timeout ${v.timeoutMs} ms, ${v.concurrency} in flight${v.headers.length ? `, headers ${v.headers.join(", ")}` : ""})`,
  },
  replayedTo: "HTTP",
  spatialOnly: false,
  needsOrigin: false,
  settledBy: "HTTP sink",
};
