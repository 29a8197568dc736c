import type { Command } from "commander";
import type { AnySinkConfigPlug } from "../replay/sinks/sink-plug";
import { CliUsageError } from "./context";

// The sinks' own flags, as their plugs declare them (SinkConfigPlug.flags): `redrive replay create` takes every
// sink's, `redrive sink check` those of the sinks it checks. Each plug's fromFlags reads them back into its body.

/** `--header "Name: value"`, repeatable: a record of headers. */
export function headerFlag(v: string, prev: Record<string, string> = {}): Record<string, string> {
  const at = v.indexOf(":");
  if (at < 1) throw new CliUsageError(`--header ${v}: expected "Name: value"`);
  return { ...prev, [v.slice(0, at).trim()]: v.slice(at + 1).trim() };
}

const longName = (flag: string) => flag.split(" ")[0] as string;

/**
 * Adds the flags of `plugs` in the registry's order, each once: with `prefixed`, its help is "<type> sink: …", joined
 * with "; " when two sinks share a flag.
 */
export function sinkFlagOptions(cmd: Command, plugs: readonly AnySinkConfigPlug[], prefixed: boolean): Command {
  const flags = new Map<string, { flag: string; help: string[]; headers: boolean }>();
  for (const p of plugs) {
    for (const f of p.flags ?? []) {
      const help = prefixed ? `${p.type} sink: ${f.help}` : f.help;
      const known = flags.get(longName(f.flag));
      if (known) known.help.push(help);
      else flags.set(longName(f.flag), { flag: f.flag, help: [help], headers: f.headers === true });
    }
  }
  for (const f of flags.values()) {
    if (f.headers) cmd.option(f.flag, f.help.join("; "), headerFlag);
    else cmd.option(f.flag, f.help.join("; "));
  }
  return cmd;
}

/** `sink.<field>` → the flag that sets it, so an error names what the user typed. */
export function sinkFlagNames(plugs: readonly AnySinkConfigPlug[]): Record<string, string> {
  return Object.fromEntries(plugs.flatMap((p) => (p.flags ?? []).map((f) => [`sink.${f.field}`, longName(f.flag)])));
}
