import "server-only";
import type pg from "pg";
import { originSink } from "./origin-sink";
import type { StoredSinkConfig } from "../batch/batch-schemas";
import { postgisSink } from "./postgis/postgis-sink";
import { httpSink } from "./http-sink";
import { ledgerSink } from "./ledger-sink";
import type { Sink } from "./sink";

/** `workerId` names the sender to an HTTP receiver (User-Agent), so its logs can tell which worker resent a key. */
export function makeSink(config: StoredSinkConfig, workerId: string, pool: pg.Pool): Sink {
  if (config.type === "ledger") return ledgerSink();
  if (config.type === "origin") return originSink(pool);
  if (config.type === "postgis") return postgisSink(config);
  return httpSink(config, workerId);
}

export type { Sink, SinkResult, Submission } from "./sink";
