import "server-only";
import { outboundTargetRefusal } from "../../../net/outbound-guard";
import type { SinkServerPlug } from "../sink-plug.server";
import type { HttpSinkConfig, HttpSinkView } from "./http-config";
import { httpSink } from "./http-sink";
import { httpSinkView, openHttpSink, storeHttpSink, storedHttpSinkView } from "./sealed-http-sink";

export const httpServerPlug: SinkServerPlug<HttpSinkConfig, HttpSinkConfig, HttpSinkView> = {
  type: "http",
  outbound: { connector: "http-sink", field: "url", refusal: (c) => outboundTargetRefusal(c.url) },
  store: storeHttpSink,
  open: openHttpSink,
  view: httpSinkView,
  storedView: storedHttpSinkView,
  make: (config, { workerId }) => httpSink(config, workerId),
};
