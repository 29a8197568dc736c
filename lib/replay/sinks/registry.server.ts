import "server-only";
import type pg from "pg";
import { z } from "zod";
import { AppError } from "../../errors/app-error";
import { httpServerPlug } from "./http/http-plug.server";
import { ledgerServerPlug } from "./ledger/ledger-plug.server";
import { originServerPlug } from "./origin/origin-plug.server";
import { postgisServerPlug } from "./postgis/postgis-plug.server";
import { SINK_TYPES, type SinkConfig, type SinkType, type SinkView } from "./registry";
import type { AnySinkServerPlug, TargetInspection } from "./sink-plug.server";
import type { Sink } from "./sink";

// Every sink type's server plug, one line each (registry.ts lists what configures and shows them). Batch creation,
// the worker and every reader of replay_batch.sink go through here, so what every sink must pass is applied once:
// the outbound rule (lib/net/outbound-guard.ts) on every sink that connects anywhere, before its own checks.

export const SERVER_SINKS = {
  ledger: ledgerServerPlug,
  http: httpServerPlug,
  origin: originServerPlug,
  postgis: postgisServerPlug,
} as const satisfies Record<SinkType, AnySinkServerPlug>;

type ServerPlug = (typeof SERVER_SINKS)[SinkType];
/** A stored sink opened for a worker (secrets unsealed where the sink needs them). */
export type StoredSinkConfig = ReturnType<ServerPlug["open"]>;

const plugOf = (type: SinkType) => SERVER_SINKS[type] as AnySinkServerPlug;

/** The outbound rule on the sink's target, if it connects anywhere: a 422 on `<path>.<field>`, before any connection. */
async function refuseOutbound(plug: AnySinkServerPlug, config: SinkConfig, path: string): Promise<void> {
  if (!("connector" in plug.outbound)) return;
  const why = await plug.outbound.refusal(config);
  const at = `${path}.${plug.outbound.field}`;
  if (why) throw new AppError("validation_failed", `${at}: ${why}`, { issues: [{ path: at, message: why }] });
}

/**
 * Before a batch is created: the outbound rule on the sink's target (a 422 on `sink.<field>`, answered before any
 * connection), then the sink's own checks. Outside any transaction: a slow target must not hold a lock.
 */
export async function checkSink(config: SinkConfig, path = "sink"): Promise<void> {
  const plug = plugOf(config.type);
  await refuseOutbound(plug, config, path);
  await plug.check?.(config, path);
}

/** `redrive sink check`: the same outbound rule (a 422 on `sink.<field>`), then what the sink finds at its target. */
export async function inspectSinkTarget(config: SinkConfig): Promise<TargetInspection> {
  const plug = plugOf(config.type);
  if (!plug.inspect) {
    const message = `${config.type} has no check`;
    throw new AppError("validation_failed", `sink.type: ${message}`, { issues: [{ path: "sink.type", message }] });
  }
  await refuseOutbound(plug, config, "sink");
  return plug.inspect(config);
}

/** What is written to replay_batch.sink: secrets sealed. */
export function storeSink(config: SinkConfig): unknown {
  return plugOf(config.type).store(config);
}

/** The sink as readers see it (secrets redacted). */
export function sinkView(config: SinkConfig): SinkView {
  return plugOf(config.type).view(config) as SinkView;
}

const StoredTypeSchema = z.looseObject({ type: z.enum(SINK_TYPES as [SinkType, ...SinkType[]]) });

/** The sink a worker sends to; throws (zod or SealError) when the stored value cannot be used. */
export function openStoredSink(stored: unknown): StoredSinkConfig {
  const { type } = StoredTypeSchema.parse(stored);
  return plugOf(type).open(stored) as StoredSinkConfig;
}

/** Unusable (the worker fails such a batch, saying why): nothing of it is shown. */
const UNREADABLE: SinkView = { type: "http", url: "redacted", headers: [], timeoutMs: 0, concurrency: 0 };

/** What readers see of a stored sink, without the key. */
export function storedSinkView(stored: unknown): SinkView {
  const typed = StoredTypeSchema.safeParse(stored);
  if (!typed.success) return UNREADABLE;
  return (plugOf(typed.data.type).storedView(stored) as SinkView | null) ?? UNREADABLE;
}

/** `workerId` names the sender to an HTTP receiver (User-Agent), so its logs can tell which worker resent a key. */
export function makeSink(config: StoredSinkConfig, workerId: string, pool: pg.Pool): Sink {
  return plugOf(config.type).make(config, { workerId, pool });
}

export type { Sink, SinkResult, Submission } from "./sink";
