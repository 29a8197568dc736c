import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { GROUPS, groupsFor } from "./groups";

describe("CLI command groups", () => {
  it("each group registers exactly the top-level commands it is listed under", async () => {
    for (const group of GROUPS) {
      const program = new Command("redrive");
      (await group.load())(program);
      expect(program.commands.map((c) => c.name()).sort()).toEqual([...group.commands].sort());
    }
  }, 60_000);

  it("loads only the group of the command given", () => {
    expect(groupsFor(["import", "file.ndjson"]).flatMap((g) => g.commands)).toEqual(["import"]);
    expect(groupsFor(["ledger", "import", "x"]).flatMap((g) => g.commands)).toEqual(["worker", "ledger", "replay"]);
    expect(groupsFor(["--help"])).toBe(GROUPS);
    expect(groupsFor([])).toBe(GROUPS);
    expect(groupsFor(["help", "import"])).toBe(GROUPS);
    expect(groupsFor(["imprt"])).toBe(GROUPS);
  });
});
