import { describe, expect, it } from "vitest";
import { ssoErrorText } from "./sso-errors";

describe("ssoErrorText", () => {
  it("explains a refusal for want of a mapped group, naming the provider", () => {
    expect(ssoErrorText("no_mapped_group", "Corp IdP")).toMatchObject({
      title: "Redrive access refused",
      detail: expect.stringContaining("Corp IdP"),
    });
  });

  it("explains tampered or expired state, and a disabled account", () => {
    expect(ssoErrorText("state_mismatch", "X").title).toBe("Sign-in could not be verified");
    expect(ssoErrorText("ACCOUNT_DISABLED", "X").title).toBe("Account disabled");
  });

  it("names an unknown code, cut short, without repeating any description from the link", () => {
    const t = ssoErrorText("x".repeat(200), "X");
    expect(t.title).toBe("Sign-in failed");
    expect(t.detail).toContain("x".repeat(60));
    expect(t.detail).not.toContain("x".repeat(61));
  });
});
