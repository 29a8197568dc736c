import { describe, expect, it } from "vitest";
import { accountRefusal } from "./account-policy";

describe("accountRefusal", () => {
  const dev = { NODE_ENV: "development" as const, REDRIVE_DEMO: undefined };
  const prod = { NODE_ENV: "production" as const, REDRIVE_DEMO: undefined };

  it("refuses disabled accounts everywhere", () => {
    expect(accountRefusal({ disabled: true, demo: false }, dev)).toBe("account_disabled");
    expect(accountRefusal({ disabled: true, demo: true }, { ...prod, REDRIVE_DEMO: "1" })).toBe("account_disabled");
  });

  it("refuses demo accounts in production unless REDRIVE_DEMO=1", () => {
    expect(accountRefusal({ disabled: false, demo: true }, prod)).toBe("demo_account_disabled");
    expect(accountRefusal({ disabled: false, demo: true }, { ...prod, REDRIVE_DEMO: "true" })).toBe("demo_account_disabled");
    expect(accountRefusal({ disabled: false, demo: true }, { ...prod, REDRIVE_DEMO: "1" })).toBeNull();
    expect(accountRefusal({ disabled: false, demo: true }, dev)).toBeNull();
    expect(accountRefusal({ disabled: false, demo: true }, { NODE_ENV: "test", REDRIVE_DEMO: undefined })).toBeNull();
  });

  it("lets ordinary enabled accounts in", () => {
    expect(accountRefusal({ disabled: false, demo: false }, prod)).toBeNull();
  });
});
