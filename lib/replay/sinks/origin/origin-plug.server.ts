import "server-only";
import type { z } from "zod";
import type { SinkServerPlug } from "../sink-plug.server";
import { OriginSinkSchema } from "./origin-config";
import { originSink } from "./origin-sink";

type OriginSinkConfig = z.output<typeof OriginSinkSchema>;

export const originServerPlug: SinkServerPlug<OriginSinkConfig, OriginSinkConfig, OriginSinkConfig> = {
  type: "origin",
  // Its connections are the broker sources' own, which an admin configures as the operator's connections
  // (README, Security); where each record may go is limited by its source's options.destinations.
  outbound: { none: "publishes through the records' own broker sources" },
  store: (config) => config,
  open: (stored) => OriginSinkSchema.parse(stored),
  view: () => ({ type: "origin" }),
  storedView: (stored) => (OriginSinkSchema.safeParse(stored).success ? { type: "origin" } : null),
  make: (_config, { pool }) => originSink(pool),
};
