import "server-only";
import type { z } from "zod";
import type { SinkServerPlug } from "../sink-plug.server";
import { LedgerSinkSchema } from "./ledger-config";
import { ledgerSink } from "./ledger-sink";

type LedgerSinkConfig = z.output<typeof LedgerSinkSchema>;

export const ledgerServerPlug: SinkServerPlug<LedgerSinkConfig, LedgerSinkConfig, LedgerSinkConfig> = {
  type: "ledger",
  outbound: { none: "writes to Redrive's own database" },
  store: (config) => config,
  open: (stored) => LedgerSinkSchema.parse(stored),
  view: () => ({ type: "ledger" }),
  storedView: (stored) => (LedgerSinkSchema.safeParse(stored).success ? { type: "ledger" } : null),
  make: () => ledgerSink(),
};
