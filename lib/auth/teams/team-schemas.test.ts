import { describe, expect, it } from "vitest";
import { TeamBodySchema, TeamPatchSchema, TeamSourceSchema } from "./team-schemas";

describe("a team's body", () => {
  it("takes a source name, a prefix ending in * and a broker source", () => {
    const body = TeamBodySchema.parse({
      name: " Parcels ",
      sources: [{ source: "parcels" }, { source: "sensor*" }, { origin: "rabbit-dlq" }],
    });
    expect(body).toEqual({
      name: "Parcels",
      members: [],
      sources: [{ source: "parcels" }, { source: "sensor*" }, { origin: "rabbit-dlq" }],
    });
  });

  it.each([
    [{ source: "a*b" }, "a `*` may only end the name"],
    [{ source: "**" }, "a `*` may only end the name"],
    [{}, "name a source"],
  ])("refuses %o", (claim, message) => {
    const r = TeamSourceSchema.safeParse(claim);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toContain(message);
  });

  it("a patch names at least one field and nothing unknown", () => {
    expect(TeamPatchSchema.safeParse({}).success).toBe(false);
    expect(TeamPatchSchema.safeParse({ role: "admin" }).success).toBe(false);
    expect(TeamPatchSchema.parse({ members: [{ userId: "u1" }] })).toEqual({ members: [{ userId: "u1" }] });
  });
});
