import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { commaList, recordFilterOf, recordFilterOptions, type RecordFilterFlags } from "./record-filter-options";

function parse(args: string[]): RecordFilterFlags {
  const cmd = recordFilterOptions(new Command("x").exitOverride());
  cmd.parse(args, { from: "user" });
  return recordFilterOf(cmd.opts<RecordFilterFlags>());
}

describe("record filter flags", () => {
  it("reads repeated and comma-separated lists alike, dropping empty entries", () => {
    expect(commaList("spatial, afc,")).toEqual(["spatial", "afc"]);
    expect(parse(["--kind", "spatial", "--kind", "afc,spatial"]).kind).toEqual(["spatial", "afc", "spatial"]);
  });

  it("gives every filter field its flag and leaves out the flags not given", () => {
    expect(parse([])).toEqual({});
    expect(
      parse([
        "--class",
        "poison",
        "--source",
        "a,b",
        "--origin",
        "orders-dlq",
        "--reason",
        "geometry",
        "--from",
        "2026-01-01T00:00:00Z",
        "--to",
        "2026-02-01T00:00:00Z",
        "--q",
        "k-1",
        "--bbox",
        "-10,40,30,60",
      ]),
    ).toEqual({
      class: ["poison"],
      source: ["a", "b"],
      origin: "orders-dlq",
      reason: "geometry",
      from: "2026-01-01T00:00:00Z",
      to: "2026-02-01T00:00:00Z",
      q: "k-1",
      bbox: "-10,40,30,60",
    });
  });
});
