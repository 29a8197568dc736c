import "server-only";
import type pg from "pg";
import { z } from "zod";
import { redactUrlSecrets } from "../../masking/url";
import { isSealed } from "../../secrets/seal";
import { openSecret, sealSecret } from "../../secrets/stored-secret";
import { configKey } from "../../secrets/config-key";
import { unseal } from "../../secrets/seal";
import { HttpSinkSchema, StoredSinkSchema, type SinkConfig, type SinkView, type StoredSinkConfig } from "./batch-schemas";
import { storedPostgisSink } from "./check-postgis-target";

// replay_batch.sink at rest. An HTTP sink's URL and header values are credentials: they are sealed together
// (lib/secrets) and the row keeps beside them only what readers are shown (the view: URL redacted, header
// names), so reading a batch never needs the key and a database dump holds no credential. The worker opens the
// sealed part to send. A PostGIS sink keeps its URL sealed (urlSealed); its sink opens it. Rows written before
// sealing hold the config in clear: read as they are.

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

export function sinkView(sink: SinkConfig | StoredSinkConfig): SinkView {
  if (sink.type === "ledger" || sink.type === "origin") return { type: sink.type };
  if (sink.type === "postgis") {
    const { type: _type, ...rest } = sink;
    return {
      type: "postgis",
      url: "url" in rest ? redactUrlSecrets(rest.url) : redactedSealedUrl(rest.urlSealed),
      table: rest.table,
      idColumn: rest.idColumn,
      idProperty: rest.idProperty ?? null,
      geometryColumn: rest.geometryColumn,
      observedAtColumn: rest.observedAtColumn,
      propertiesColumn: rest.propertiesColumn ?? null,
      srid: rest.srid,
    };
  }
  return {
    type: "http",
    url: redactUrlSecrets(sink.url),
    headers: Object.keys(sink.headers ?? {}),
    timeoutMs: sink.timeoutMs,
    concurrency: sink.concurrency,
  };
}

/** A batch stays readable when its sealed URL is not (another REDRIVE_SECRET_KEY): the view says so instead. */
function redactedSealedUrl(sealed: string): string {
  try {
    return redactUrlSecrets(unseal(sealed, configKey()));
  } catch (err) {
    return `(unreadable: ${(err as Error).message})`;
  }
}

/** What is written to replay_batch.sink. */
export function storeSink(sink: SinkConfig): StoredSinkConfig | SealedHttpSink {
  if (sink.type === "postgis") return storedPostgisSink(sink);
  if (sink.type !== "http") return sink;
  const view = sinkView(sink) as Extract<SinkView, { type: "http" }>;
  return { ...view, sealed: sealSecret(JSON.stringify({ url: sink.url, headers: sink.headers })) };
}

/** The sink a worker sends to; throws (zod or SealError) when the stored value cannot be used. */
export function openStoredSink(stored: unknown): StoredSinkConfig {
  const sealed = SealedHttpSinkSchema.safeParse(stored);
  if (!sealed.success) return StoredSinkSchema.parse(stored);
  const { type, timeoutMs, concurrency } = sealed.data;
  const part = SealedPartSchema.parse(JSON.parse(openSecret(sealed.data.sealed)));
  return StoredSinkSchema.parse({ type, timeoutMs, concurrency, ...part });
}

/** What readers see of a stored sink, without the key. */
export function storedSinkView(stored: unknown): SinkView {
  const sealed = SealedHttpSinkSchema.safeParse(stored);
  if (sealed.success) {
    const { type, url, headers, timeoutMs, concurrency } = sealed.data;
    return { type, url, headers, timeoutMs, concurrency };
  }
  const plain = StoredSinkSchema.safeParse(stored);
  // Unusable (the worker fails such a batch, saying why): nothing of it is shown.
  return plain.success ? sinkView(plain.data) : { type: "http", url: "redacted", headers: [], timeoutMs: 0, concurrency: 0 };
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
      JSON.stringify(storeSink(plain.data)),
    ]);
    sealed++;
  }
  return sealed;
}
