import { z } from "zod";
import type { SinkConfigPlug } from "../sink-plug";

// The built-in ledger takes no configuration. Pure and client-safe.

export const LedgerSinkSchema = z.strictObject({ type: z.literal("ledger") });

export const ledgerConfigPlug: SinkConfigPlug<"ledger", typeof LedgerSinkSchema, { type: "ledger" }> = {
  type: "ledger",
  label: "Built-in ledger",
  help: "Built-in ledger: each record's key is recorded in Redrive's own ledger, once, newest observation per entity winning; nothing leaves Redrive.",
  cliHelp: "ledger (built-in)",
  schema: LedgerSinkSchema,
  fromFlags: () => ({ type: "ledger" }),
  describe: { cli: () => "built-in ledger", short: () => "built-in ledger", detail: () => "built-in ledger" },
  replayedTo: "the built-in ledger",
  spatialOnly: false,
  needsOrigin: false,
  settledBy: null,
};
