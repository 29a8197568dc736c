import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

// Every way in that starts a production process refuses to start without the secrets it would otherwise fail on at
// first use (lib/secrets/production-secrets.ts). `npm run serve` checked the session secret only: started without
// the audit key, it answered ready and failed every sign-in with a 500.

const KEY = "k".repeat(40);
const base: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none", PORT: "3" };
delete base.BETTER_AUTH_SECRET;
delete base.REDRIVE_AUDIT_KEY;
delete base.REDRIVE_SECRET_KEY;

const WAYS_IN: [string, string[], Record<string, string>, string][] = [
  [
    "npm run serve",
    ["--import", "./bin/server-side.mjs", "--import", "tsx", "scripts/serve.ts"],
    { BETTER_AUTH_SECRET: KEY },
    "REDRIVE_AUDIT_KEY, REDRIVE_SECRET_KEY",
  ],
  [
    "npm start",
    ["--import", "./bin/server-side.mjs", "--import", "tsx", "scripts/start.ts"],
    { REDRIVE_AUDIT_KEY: KEY },
    "BETTER_AUTH_SECRET, REDRIVE_SECRET_KEY",
  ],
  ["redrive worker", ["bin/redrive.mjs", "worker"], { REDRIVE_SECRET_KEY: KEY }, "REDRIVE_AUDIT_KEY"],
];

describe("a production process without its secrets", () => {
  for (const [name, args, given, missing] of WAYS_IN) {
    it(`${name} refuses to start, naming what is missing`, () => {
      const run = spawnSync(process.execPath, args, { env: { ...base, ...given }, encoding: "utf8", timeout: 60_000 });
      expect(run.status, run.stdout + run.stderr).not.toBe(0);
      expect(run.stderr).toContain(`NODE_ENV=production needs ${missing} (`);
    }, 90_000);
  }
});
