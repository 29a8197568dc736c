import type { Command } from "commander";

// The PostGIS target's flags, shared by `redrive replay create --sink postgis` and `redrive sink check`: the same
// names, the same defaults, read into the same sink body (postgisSinkBody, lib/replay/sinks/postgis/postgis-sink-schema.ts).

export interface PostgisFlags {
  url?: string;
  table?: string;
  idColumn?: string;
  idProperty?: string;
  geometryColumn?: string;
  observedAtColumn?: string;
  propertiesColumn?: string;
  srid?: string;
}

/** Adds the target flags (not --url, whose help differs per command). */
export function postgisTargetOptions(cmd: Command, prefix = ""): Command {
  return cmd
    .option("--table <name>", `${prefix}the table, schema.table`)
    .option("--id-column <c>", `${prefix}the feature id's column, unique (default id)`)
    .option("--id-property <p>", `${prefix}the property holding the id of a Feature without one`)
    .option("--geometry-column <c>", `${prefix}the geometry column (default geom)`)
    .option("--observed-at-column <c>", `${prefix}the observation time's column (default observed_at)`)
    .option("--properties-column <c>", `${prefix}a jsonb column for the Feature's properties`)
    .option("--srid <n>", `${prefix}the SRID given to the geometries (default 4326)`);
}
