// `redrive sink check --type <type> --url … [its flags]`: connects to a replay sink's target and says what it found,
// before anyone builds a batch on it (PostGIS: the PostGIS and GEOS versions, the table's columns, the key table and
// every problem batch creation would refuse). Which sinks have a check, their flags and the check itself are their
// plugs': `checkCommand` and `flags` in the config plug, `inspect` in the server plug, reached through the registry
// (inspectSinkTarget, which applies the outbound rule first). Exit 0 when the target can take a batch, 1 when it
// cannot, 2 for a usage error.
import "server-only";
import type { Command } from "commander";
import { AppError } from "../../errors/app-error";
import { SINKS, urlHelp, type SinkConfig } from "../../replay/sinks/registry";
import type { AnySinkConfigPlug, FlagNumber } from "../../replay/sinks/sink-plug";
import { CliUsageError, optionsError } from "../context";
import { printAnswer } from "../output";
import { sinkFlagNames, sinkFlagOptions } from "../sink-flags";

interface CheckOptions {
  type: string;
  json?: boolean;
  /** --url and the checked sinks' own flags, read by the plug's fromFlags */
  [sinkFlag: string]: unknown;
}

/** A number flag of the check (--srid): digits only, else a usage error naming the flag. */
const wholeNumber: FlagNumber = (value, flag) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(String(value))) throw new CliUsageError(`${flag}: expected a number, got ${JSON.stringify(value)}`);
  return Number(value);
};

/** `sinks`: the registry's sink types (a test registers one more). */
export function registerSinkCommands(program: Command, sinks: readonly AnySinkConfigPlug[] = SINKS): void {
  const checkable = sinks.filter((p) => p.checkCommand !== undefined);
  const several = checkable.length > 1;
  const names: Record<string, string> = { "sink.url": "--url", ...sinkFlagNames(checkable) };
  const flagOf = (path: string) => names[path] ?? path;
  const sink = program.command("sink").description("replay sinks: check a target before building a batch on it");
  const check = sink
    .command("check")
    .description(`connect to a sink's target and say what is there (${checkable.map((p) => p.checkCommand).join("; ")})`)
    .requiredOption("--type <type>", `the sink type: ${checkable.map((p) => p.type).join(" | ")}`)
    .option("--url <url>", several ? urlHelp(checkable) : (checkable[0]?.urlHelp ?? "the target's URL"));
  sinkFlagOptions(check, checkable, several)
    .option("--json", "print the report as JSON")
    .action(async (o: CheckOptions) => {
      const plug = checkable.find((p) => p.type === o.type);
      if (!plug) throw new CliUsageError(`--type: ${o.type} has no check; only ${checkable.map((p) => p.type).join(", ")} does`);
      const parsed = plug.schema.safeParse(JSON.parse(JSON.stringify(plug.fromFlags({ ...o }, wholeNumber))));
      if (!parsed.success) throw optionsError(parsed.error.issues);
      // Loaded when a check runs, not with the command: the server registry loads every sink's modules (the origin
      // sink's broker clients among them), which made `sink check --help` take 0.9 s instead of 0.4 s on 2 cores.
      const { inspectSinkTarget } = await import("../../replay/sinks/registry.server");
      const inspection = await inspectSinkTarget(parsed.data as SinkConfig).catch((err: unknown) => {
        // The outbound rule's refusal: a usage error naming the flag, as before any connection.
        if (err instanceof AppError && err.code === "validation_failed")
          throw new CliUsageError(err.issues.map((i) => `${flagOf(i.path)}: ${i.message}`).join("; "));
        throw err;
      });
      printAnswer(inspection.answer, { json: o.json, text: (a) => `${inspection.text(a, flagOf)}\n` });
      if (!inspection.ok) process.exitCode = 1;
    });
}
