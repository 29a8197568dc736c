import { z } from "zod";
import { redactUrlSecrets } from "../../../masking/url";
import type { SinkConfigPlug, SinkFlags } from "../sink-plug";
import { postgisForm } from "./postgis-form";

// The PostGIS sink's configuration: where a batch writes features (a PostgreSQL database with PostGIS, one table)
// and which columns hold what. Pure and client-safe (the replay form validates with it); its plug is at the end.
//
// `table` is read as SQL reads a name — `schema.table`, an unquoted part folded to lower case, a double-quoted part
// kept as written (`"Roads"."2024.v1"`) — because that is how the people who own the table write it. Column names
// are taken exactly as they are stored (information_schema's spelling): a column is one name, nothing to parse.

export interface TableName {
  /** null: unqualified, resolved on the target's search_path */
  schema: string | null;
  table: string;
}

const BARE = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/;
/** PostgreSQL truncates longer names (NAMEDATALEN - 1 bytes); we refuse them rather than write elsewhere. */
const MAX_NAME_BYTES = 63;

/** Parses `schema.table`, `table`, `"Quoted"."names"`; null when it is not such a name. */
export function parseTableName(text: string): TableName | null {
  const parts: string[] = [];
  let i = 0;
  const s = text.trim();
  while (i <= s.length) {
    if (s[i] === '"') {
      let name = "";
      let j = i + 1;
      for (;;) {
        const close = s.indexOf('"', j);
        if (close < 0) return null;
        name += s.slice(j, close);
        if (s[close + 1] === '"') {
          name += '"';
          j = close + 2;
          continue;
        }
        i = close + 1;
        break;
      }
      if (name === "") return null;
      parts.push(name);
    } else {
      const m = BARE.exec(s.slice(i));
      if (!m) return null;
      parts.push(m[0].toLowerCase());
      i += m[0].length;
    }
    if (i === s.length) break;
    if (s[i] !== ".") return null;
    i++;
  }
  if (parts.length < 1 || parts.length > 2) return null;
  if (parts.some((p) => new TextEncoder().encode(p).length > MAX_NAME_BYTES)) return null;
  return parts.length === 2 ? { schema: parts[0] as string, table: parts[1] as string } : { schema: null, table: parts[0] as string };
}

const column = z
  .string()
  .min(1)
  .refine((c) => new TextEncoder().encode(c).length <= MAX_NAME_BYTES, {
    error: `must be a column name of at most ${MAX_NAME_BYTES} bytes`,
  })
  .refine((c) => !c.includes("\0"), { error: "must not contain NUL" });

const connectionUrl = z
  .string()
  .max(2000)
  .refine(
    (u) => {
      try {
        const url = new URL(u);
        return (url.protocol === "postgresql:" || url.protocol === "postgres:") && url.hostname !== "";
      } catch {
        return false;
      }
    },
    { error: "must be a postgresql://user:password@host:port/database URL" },
  );

const targetFields = {
  table: z
    .string()
    .min(1)
    .max(300)
    .refine((t) => parseTableName(t) !== null, {
      error: 'must be a table name: table or schema.table ("Quoted" parts keep case and dots)',
    }),
  /** the target's key for a feature: unique (the upsert's ON CONFLICT needs a unique index on it alone) */
  idColumn: column.default("id"),
  /** where the feature's id comes from when the GeoJSON Feature has none: this property */
  idProperty: z.string().min(1).max(200).optional(),
  geometryColumn: column.default("geom"),
  observedAtColumn: column.default("observed_at"),
  propertiesColumn: column.optional(),
  srid: z.number().int().min(0).max(999_999).default(4326),
};

/** What a supervisor sends. The URL (it holds the password) is sealed before the batch is stored. */
export const PostgisSinkSchema = z.strictObject({ type: z.literal("postgis"), url: connectionUrl, ...targetFields });
export type PostgisSinkConfig = z.output<typeof PostgisSinkSchema>;

/** As stored in replay_batch.sink: the URL sealed (lib/secrets/seal.ts), never in the clear. */
export const StoredPostgisSinkSchema = z.strictObject({ type: z.literal("postgis"), urlSealed: z.string().min(1), ...targetFields });
export type StoredPostgisSinkConfig = z.output<typeof StoredPostgisSinkSchema>;

/** The target's columns, as the sink and the check read them. */
export type PostgisTarget = Omit<PostgisSinkConfig, "type" | "url">;

/** The PostGIS sink as shown to readers: the URL with its password and query values redacted. */
export interface PostgisSinkView {
  type: "postgis";
  url: string;
  table: string;
  idColumn: string;
  idProperty: string | null;
  geometryColumn: string;
  observedAtColumn: string;
  propertiesColumn: string | null;
  srid: number;
}

/** The sink body `redrive replay create --sink postgis` and `redrive sink check` read from the same flags. */
export function postgisSinkBody(o: SinkFlags, srid: number | undefined): Record<string, unknown> {
  const body = {
    type: "postgis",
    url: o.url,
    table: o.table,
    idColumn: o.idColumn,
    idProperty: o.idProperty,
    geometryColumn: o.geometryColumn,
    observedAtColumn: o.observedAtColumn,
    propertiesColumn: o.propertiesColumn,
    srid,
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

export const postgisConfigPlug: SinkConfigPlug<"postgis", typeof PostgisSinkSchema, PostgisSinkView> = {
  type: "postgis",
  label: "PostGIS table",
  help: "PostGIS table: each feature is upserted into the table by its id, the newest observation winning, and its key recorded beside it so it is applied once.",
  cliHelp: "postgis (a PostGIS table)",
  urlHelp: "postgresql://user:password@host:port/database",
  schema: PostgisSinkSchema,
  form: postgisForm,
  flags: [
    { flag: "--table <name>", field: "table", help: "the table, schema.table" },
    { flag: "--id-column <c>", field: "idColumn", help: "the feature id's column, unique (default id)" },
    { flag: "--id-property <p>", field: "idProperty", help: "the property holding the id of a Feature without one" },
    { flag: "--geometry-column <c>", field: "geometryColumn", help: "the geometry column (default geom)" },
    { flag: "--observed-at-column <c>", field: "observedAtColumn", help: "the observation time's column (default observed_at)" },
    { flag: "--properties-column <c>", field: "propertiesColumn", help: "a jsonb column for the Feature's properties" },
    { flag: "--srid <n>", field: "srid", help: "the SRID given to the geometries (default 4326)" },
  ],
  fromFlags: (o, num) => postgisSinkBody(o, num(o.srid, "--srid")),
  checkCommand: "PostGIS: version, columns, key table, problems",
  checking: (config) => `checking the PostGIS target ${redactUrlSecrets(config.url)} ${config.table}…`,
  describe: {
    cli: (v) => `postgis ${v.url} table ${v.table}`,
    short: (v) => `PostGIS ${v.table}`,
    detail: (v) =>
      `PostGIS ${v.url}, table ${v.table} (id ${v.idColumn}, geometry ${v.geometryColumn} SRID ${v.srid}, observed ${v.observedAtColumn}${v.propertiesColumn ? `, properties ${v.propertiesColumn}` : ""}): newest observation wins, each key once`,
  },
  replayedTo: "PostGIS",
  spatialOnly: true,
  needsOrigin: false,
  settledBy: "PostGIS sink",
};
