import type { SinkConfig } from "../schemas";
import { httpSink } from "./http";
import { ledgerSink } from "./ledger";
import type { Sink } from "./types";

/** `workerId` names the sender to an HTTP receiver (User-Agent), so its logs can tell which worker resent a key. */
export function makeSink(config: SinkConfig, workerId: string): Sink {
  return config.type === "ledger" ? ledgerSink() : httpSink(config, workerId);
}

export type { Sink, SinkResult, Submission } from "./types";
