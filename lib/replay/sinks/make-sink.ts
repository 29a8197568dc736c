import type { SinkConfig } from "../batch/batch-schemas";
import { httpSink } from "./http-sink";
import { ledgerSink } from "./ledger-sink";
import type { Sink } from "./sink";

/** `workerId` names the sender to an HTTP receiver (User-Agent), so its logs can tell which worker resent a key. */
export function makeSink(config: SinkConfig, workerId: string): Sink {
  return config.type === "ledger" ? ledgerSink() : httpSink(config, workerId);
}

export type { Sink, SinkResult, Submission } from "./sink";
