import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuthSecretError, resolveAuthSecret, SECRET_FILE } from "./secret";

const dir = () => mkdtempSync(join(tmpdir(), "redrive-secret-"));

describe("resolveAuthSecret", () => {
  it("uses BETTER_AUTH_SECRET when set", () => {
    const s = "x".repeat(40);
    expect(resolveAuthSecret({ BETTER_AUTH_SECRET: s, NODE_ENV: "production", REDRIVE_DATA_DIR: "/nonexistent" })).toBe(s);
  });

  it("refuses to start in production without one", () => {
    expect(() => resolveAuthSecret({ BETTER_AUTH_SECRET: undefined, NODE_ENV: "production", REDRIVE_DATA_DIR: dir() })).toThrow(
      AuthSecretError,
    );
    expect(() => resolveAuthSecret({ BETTER_AUTH_SECRET: undefined, NODE_ENV: "production", REDRIVE_DATA_DIR: dir() })).toThrow(
      /BETTER_AUTH_SECRET is not set/,
    );
  });

  it("elsewhere generates one into <data dir>/auth-secret (mode 600) and reuses it", () => {
    const d = join(dir(), "nested");
    const env = { BETTER_AUTH_SECRET: undefined, NODE_ENV: "development" as const, REDRIVE_DATA_DIR: d };
    const first = resolveAuthSecret(env);
    expect(first.length).toBeGreaterThanOrEqual(32);
    const file = join(d, SECRET_FILE);
    expect(readFileSync(file, "utf8").trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveAuthSecret(env)).toBe(first);
  });

  it("rejects a stored secret that is too short", () => {
    const d = dir();
    writeFileSync(join(d, SECRET_FILE), "short\n");
    expect(() => resolveAuthSecret({ BETTER_AUTH_SECRET: undefined, NODE_ENV: "test", REDRIVE_DATA_DIR: d })).toThrow(/shorter than 32/);
  });
});
