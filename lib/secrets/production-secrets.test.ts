import { describe, expect, it } from "vitest";
import { missingProductionSecrets, productionSecretsRefusal, WORKER_SECRETS } from "./production-secrets";

const KEY = "k".repeat(32);

describe("the secrets a production process needs", () => {
  it("names each one missing", () => {
    expect(missingProductionSecrets({ NODE_ENV: "production", BETTER_AUTH_SECRET: KEY })).toEqual([
      "REDRIVE_AUDIT_KEY",
      "REDRIVE_SECRET_KEY",
    ]);
    expect(productionSecretsRefusal({ NODE_ENV: "production" })).toMatch(
      /^NODE_ENV=production needs BETTER_AUTH_SECRET, REDRIVE_AUDIT_KEY, REDRIVE_SECRET_KEY/,
    );
  });
  it("asks nothing when all are given, or outside production (they are generated into the data directory)", () => {
    expect(
      productionSecretsRefusal({ NODE_ENV: "production", BETTER_AUTH_SECRET: KEY, REDRIVE_AUDIT_KEY: KEY, REDRIVE_SECRET_KEY: KEY }),
    ).toBeNull();
    expect(missingProductionSecrets({ NODE_ENV: "development" })).toEqual([]);
  });
  it("asks a worker for the audit and sealing keys only", () => {
    expect(missingProductionSecrets({ NODE_ENV: "production" }, WORKER_SECRETS)).toEqual(["REDRIVE_AUDIT_KEY", "REDRIVE_SECRET_KEY"]);
  });
});
