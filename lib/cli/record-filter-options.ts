import type { Command } from "commander";

// The record filter's flags, shared by `redrive export` and `redrive replay create`: the same names and
// values as the list page's filter (and the API's), read into the same filter object. Status is left to each
// command: a replay takes only approved records (--filter-status), an export any (--status).

/** A repeatable, comma-separated flag: `--kind spatial --kind afc` and `--kind spatial,afc` mean the same. */
export function commaList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

export interface RecordFilterFlags {
  kind?: string[];
  class?: string[];
  source?: string[];
  origin?: string;
  reason?: string;
  from?: string;
  to?: string;
  q?: string;
  bbox?: string;
}

/** Adds --kind, --class, --source, --origin, --reason, --from, --to, --q and --bbox. */
export function recordFilterOptions(cmd: Command, prefix = ""): Command {
  return cmd
    .option("--kind <kinds>", `${prefix}spatial,afc`, commaList)
    .option("--class <classes>", `${prefix}transient,transient_schema,poison`, commaList)
    .option("--source <sources>", `${prefix}source names`, commaList)
    .option("--origin <name>", `${prefix}records pulled from this broker source`)
    .option("--reason <group>", `${prefix}a reason group`)
    .option("--from <time>", `${prefix}observed at or after (RFC 3339)`)
    .option("--to <time>", `${prefix}observed at or before (RFC 3339)`)
    .option("--q <text>", `${prefix}an identifier, as in lookup: key, hash prefix, event id, device id or message id`)
    .option("--bbox <minLon,minLat,maxLon,maxLat>", `${prefix}records whose geometry overlaps this box`);
}

/** The filter the flags say; flags not given are left out, so the schema's defaults apply. */
export function recordFilterOf(o: RecordFilterFlags): RecordFilterFlags {
  const { kind, class: classes, source, origin, reason, from, to, q, bbox } = o;
  return Object.fromEntries(
    Object.entries({ kind, class: classes, source, origin, reason, from, to, q, bbox }).filter(([, v]) => v !== undefined),
  );
}
