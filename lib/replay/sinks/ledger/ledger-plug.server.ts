import "server-only";
import { typeOnlyServerPlug } from "../sink-plug.server";
import { LedgerSinkSchema } from "./ledger-config";
import { ledgerSink } from "./ledger-sink";

export const ledgerServerPlug = typeOnlyServerPlug("ledger", LedgerSinkSchema, { none: "writes to Redrive's own database" }, () =>
  ledgerSink(),
);
