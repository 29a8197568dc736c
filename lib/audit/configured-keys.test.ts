import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getEnv } from "../env";
import { AUDIT_KEY_FILE, configuredAuditKeys } from "./configured-keys";
import { auditKey } from "./keys";

const dir = () => mkdtempSync(join(tmpdir(), "redrive-audit-key-"));
const A = "a".repeat(40);
const B = "b".repeat(40);

describe("the configured audit keys", () => {
  it("take REDRIVE_AUDIT_KEY as the current key and REDRIVE_AUDIT_RETIRED_KEYS for verification", () => {
    const keys = configuredAuditKeys({
      REDRIVE_AUDIT_KEY: B,
      REDRIVE_AUDIT_RETIRED_KEYS: ` ${A} ,`,
      NODE_ENV: "production",
      REDRIVE_DATA_DIR: "/nonexistent",
    });
    expect(keys.current.id).toBe(auditKey(B).id);
    expect([...keys.byId.keys()].sort()).toEqual([auditKey(A).id, auditKey(B).id].sort());
  });

  it("refuse production without a key, and generate one into the data directory elsewhere, kept across calls", () => {
    expect(() =>
      configuredAuditKeys({
        REDRIVE_AUDIT_KEY: undefined,
        REDRIVE_AUDIT_RETIRED_KEYS: undefined,
        NODE_ENV: "production",
        REDRIVE_DATA_DIR: dir(),
      }),
    ).toThrow(/REDRIVE_AUDIT_KEY is not set/);
    const d = dir();
    const env = {
      REDRIVE_AUDIT_KEY: undefined,
      REDRIVE_AUDIT_RETIRED_KEYS: undefined,
      NODE_ENV: "development" as const,
      REDRIVE_DATA_DIR: d,
    };
    const first = configuredAuditKeys(env);
    const file = join(d, AUDIT_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.current.id).toBe(auditKey(readFileSync(file, "utf8").trim()).id);
    // A configuration seen before (another directory in between) gives the same key back.
    configuredAuditKeys({ ...env, REDRIVE_DATA_DIR: dir() });
    expect(configuredAuditKeys(env).current.id).toBe(first.current.id);
  });

  it("refuse retired keys shorter than 32 characters in the environment", () => {
    expect(() => getEnv({ NODE_ENV: "test", REDRIVE_AUDIT_RETIRED_KEYS: `${A},short` })).toThrow(
      /REDRIVE_AUDIT_RETIRED_KEYS: each key must be at least 32 characters/,
    );
    expect(getEnv({ NODE_ENV: "test", REDRIVE_AUDIT_RETIRED_KEYS: `${A},${B}` }).REDRIVE_AUDIT_RETIRED_KEYS).toBe(`${A},${B}`);
  });
});
