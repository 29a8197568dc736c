import "server-only";
import { typeOnlyServerPlug } from "../sink-plug.server";
import { OriginSinkSchema } from "./origin-config";
import { originSink } from "./origin-sink";

// Its connections are the broker sources' own, which an admin configures as the operator's connections (README,
// Security); where each record may go is limited by its source's options.destinations.
export const originServerPlug = typeOnlyServerPlug(
  "origin",
  OriginSinkSchema,
  { none: "publishes through the records' own broker sources" },
  (_config, { pool }) => originSink(pool),
);
