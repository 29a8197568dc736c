import "server-only";
import type pg from "pg";
import { z } from "zod";
import { redactUrlSecrets } from "../../../masking/url";
import { isSealed } from "../../../secrets/seal";
import { openSecret, sealSecret } from "../../../secrets/stored-secret";
import { HttpSinkSchema, type HttpSinkConfig, type HttpSinkView } from "./http-config";

// An HTTP sink in replay_batch.sink. Its URL and header values are credentials: they are sealed together
// (lib/secrets) and the row keeps beside them only what readers are shown (the view: URL redacted, header
// names), so reading a batch never needs the key and a database dump holds no credential. The worker opens the
// sealed part to send. Rows written before sealing hold the config in clear: read as they are.

const SealedHttpSinkSchema = z.strictObject({
  type: z.literal("http"),
  url: z.string(),
  headers: z.array(z.string()),
  timeoutMs: z.number(),
  concurrency: z.number(),
  /** seal(JSON of {url, headers}) */
  sealed: z.string().refine(isSealed, "must be a sealed value"),
});
type SealedHttpSink = z.output<typeof SealedHttpSinkSchema>;

const SealedPartSchema = HttpSinkSchema.pick({ url: true, headers: true });

export function httpSinkView(sink: HttpSinkConfig): HttpSinkView {
  return {
    type: "http",
    url: redactUrlSecrets(sink.url),
    headers: Object.keys(sink.headers ?? {}),
    timeoutMs: sink.timeoutMs,
    concurrency: sink.concurrency,
  };
}

/** What is written to replay_batch.sink. */
export function storeHttpSink(sink: HttpSinkConfig): SealedHttpSink {
  return { ...httpSinkView(sink), sealed: sealSecret(JSON.stringify({ url: sink.url, headers: sink.headers })) };
}

/** The sink a worker sends to; throws (zod or SealError) when the stored value cannot be used. */
export function openHttpSink(stored: unknown): HttpSinkConfig {
  const sealed = SealedHttpSinkSchema.safeParse(stored);
  if (!sealed.success) return HttpSinkSchema.parse(stored);
  const { type, timeoutMs, concurrency } = sealed.data;
  const part = SealedPartSchema.parse(JSON.parse(openSecret(sealed.data.sealed)));
  return HttpSinkSchema.parse({ type, timeoutMs, concurrency, ...part });
}

/** What readers see of a stored sink, without the key. */
export function storedHttpSinkView(stored: unknown): HttpSinkView | null {
  const sealed = SealedHttpSinkSchema.safeParse(stored);
  if (sealed.success) {
    const { type, url, headers, timeoutMs, concurrency } = sealed.data;
    return { type, url, headers, timeoutMs, concurrency };
  }
  const plain = HttpSinkSchema.safeParse(stored);
  return plain.success ? httpSinkView(plain.data) : null;
}

/** Seals HTTP sinks stored in clear (batches created before sealing); returns how many. */
export async function sealPlainSinks(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ id: string; sink: unknown }>(
    `SELECT id::text AS id, sink FROM replay_batch WHERE sink->>'type' = 'http' AND NOT sink ? 'sealed'`,
  );
  let sealed = 0;
  for (const r of rows) {
    const plain = HttpSinkSchema.safeParse(r.sink);
    if (!plain.success) continue; // unusable either way; the worker says why if it is ever started
    await pool.query(`UPDATE replay_batch SET sink = $2 WHERE id = $1 AND NOT sink ? 'sealed'`, [
      r.id,
      JSON.stringify(storeHttpSink(plain.data)),
    ]);
    sealed++;
  }
  return sealed;
}
