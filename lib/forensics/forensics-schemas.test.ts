import { describe, expect, it } from "vitest";
import { zodIssues } from "../errors/app-error";
import { AlertRuleUpdateSchema } from "./forensics-schemas";

const issuesOf = (body: unknown) => {
  const r = AlertRuleUpdateSchema.safeParse(body);
  return r.success ? [] : zodIssues(r.error);
};

describe("AlertRuleUpdateSchema", () => {
  it("takes an http(s) webhook URL, or null to remove it", () => {
    expect(issuesOf({ webhookUrl: "https://hooks.example.org/alert?key=k" })).toEqual([]);
    expect(issuesOf({ webhookUrl: null })).toEqual([]);
  });

  it("refuses a webhook URL with credentials, which fetch refuses when the alert fires", () => {
    for (const webhookUrl of ["https://user:pass@hooks.example.org/alert", "http://user@127.0.0.1:9/"]) {
      expect(issuesOf({ webhookUrl })).toEqual([
        { path: "webhookUrl", message: "must not contain a user name or password (fetch refuses them; put a token in the path or query)" },
      ]);
    }
  });
});
