import type pg from "pg";
import { originSink } from "./origin-sink";
import type { SinkConfig } from "../batch/batch-schemas";
import { httpSink } from "./http-sink";
import { ledgerSink } from "./ledger-sink";
import type { Sink } from "./sink";

/** `workerId` names the sender to an HTTP receiver (User-Agent), so its logs can tell which worker resent a key. */
export function makeSink(config: SinkConfig, workerId: string, pool: pg.Pool): Sink {
  if (config.type === "ledger") return ledgerSink();
  if (config.type === "origin") return originSink(pool);
  return httpSink(config, workerId);
}

export type { Sink, SinkResult, Submission } from "./sink";
