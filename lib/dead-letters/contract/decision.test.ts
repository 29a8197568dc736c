import { describe, expect, it } from "vitest";
import { ActionBodySchema } from "./decision";

const issuesOf = (body: unknown) => {
  const r = ActionBodySchema.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
};

describe("ActionBodySchema: 4xx issues name the field once and the rule", () => {
  it("an unknown action", () => {
    expect(issuesOf({ action: "nuke", version: 1 })).toEqual([
      { path: "action", message: "must be one of approve, edit, quarantine, reopen" },
    ]);
  });
  it("quarantine without a reason", () => {
    expect(issuesOf({ action: "quarantine", version: 1 })).toEqual([{ path: "reason", message: "is required" }]);
  });
  it("quarantine with a blank reason", () => {
    expect(issuesOf({ action: "quarantine", version: 1, reason: "  " })).toEqual([{ path: "reason", message: "must not be blank" }]);
  });
});
