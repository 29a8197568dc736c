import "server-only";
import { redactUrlSecrets } from "../../../masking/url";
import { configKey } from "../../../secrets/config-key";
import { unseal } from "../../../secrets/seal";
import type { SinkServerPlug } from "../sink-plug.server";
import { checkPostgisDatabase, postgisTargetRefusal, storedPostgisSink } from "./check-postgis-target";
import { postgisSink } from "./postgis-sink";
import { StoredPostgisSinkSchema, type PostgisSinkConfig, type PostgisSinkView, type StoredPostgisSinkConfig } from "./postgis-sink-schema";
import { reportPostgisTarget } from "./target-report";

// The URL (it holds the password) is kept sealed (urlSealed); the sink opens it when it connects.

function postgisView(sink: PostgisSinkConfig | StoredPostgisSinkConfig): PostgisSinkView {
  const { type: _type, ...rest } = sink;
  return {
    type: "postgis",
    url: "url" in rest ? redactUrlSecrets(rest.url) : redactedSealedUrl(rest.urlSealed),
    table: rest.table,
    idColumn: rest.idColumn,
    idProperty: rest.idProperty ?? null,
    geometryColumn: rest.geometryColumn,
    observedAtColumn: rest.observedAtColumn,
    propertiesColumn: rest.propertiesColumn ?? null,
    srid: rest.srid,
  };
}

/** A batch stays readable when its sealed URL is not (another REDRIVE_SECRET_KEY): the view says so instead. */
function redactedSealedUrl(sealed: string): string {
  try {
    return redactUrlSecrets(unseal(sealed, configKey()));
  } catch (err) {
    return `(unreadable: ${(err as Error).message})`;
  }
}

export const postgisServerPlug: SinkServerPlug<PostgisSinkConfig, StoredPostgisSinkConfig, PostgisSinkView> = {
  type: "postgis",
  outbound: { connector: "postgis-sink", field: "url", refusal: (c) => postgisTargetRefusal(c.url) },
  store: storedPostgisSink,
  open: (stored) => StoredPostgisSinkSchema.parse(stored),
  view: postgisView,
  storedView: (stored) => {
    const parsed = StoredPostgisSinkSchema.safeParse(stored);
    return parsed.success ? postgisView(parsed.data) : null;
  },
  check: async (config, path) => {
    await checkPostgisDatabase(config, path);
  },
  inspect: reportPostgisTarget,
  make: (stored) => postgisSink(stored),
};
