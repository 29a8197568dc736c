import { describe, expect, it } from "vitest";
import { pagePolicy, policyNonce, staticPolicy } from "./content-security-policy";

describe("policyNonce", () => {
  it("reads back the nonce a page policy was made with", () => {
    expect(policyNonce(pagePolicy("abc+/9=", false))).toBe("abc+/9=");
  });
  it("finds none in a policy without one, or without a policy", () => {
    expect(policyNonce(staticPolicy(false))).toBeUndefined();
    expect(policyNonce(null)).toBeUndefined();
  });
});
