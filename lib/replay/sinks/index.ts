import type { SinkConfig } from "../schemas";
import { httpSink } from "./http";
import { ledgerSink } from "./ledger";
import type { Sink } from "./types";

export function makeSink(config: SinkConfig): Sink {
  return config.type === "ledger" ? ledgerSink() : httpSink(config);
}

export type { Sink, SinkResult, Submission } from "./types";
