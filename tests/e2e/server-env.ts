// The environment of the production server the specs run against (playwright.config.ts's webServer), shared with
// specs that start more servers on the same database (cluster.spec.ts): one session secret, one sealing key and one
// audit key for every process that touches the database.

process.env.REDRIVE_AUDIT_KEY ??= "e2e-audit-key-0123456789abcdefghijklmnopqrstuvwxyz";

export function e2eServerEnv(port: number): Record<string, string> {
  return {
    DATABASE_URL: process.env.E2E_DATABASE_URL ?? "",
    REDRIVE_DB_MODE: process.env.REDRIVE_DB_MODE ?? "",
    PORT: String(port),
    NODE_ENV: "production",
    REDRIVE_DRAIN_DELAY_MS: "0",
    REDRIVE_DEMO: "1",
    // every test signs in from 127.0.0.1; the limiter itself is tested in tests/integration/auth.test.ts
    REDRIVE_SIGNIN_ATTEMPTS_PER_MINUTE: "1000",
    BETTER_AUTH_SECRET: "e2e-secret-0123456789abcdefghijklmnopqrstuvwxyz",
    // seals the broker sources' URLs (required in production)
    REDRIVE_SECRET_KEY: "e2e-sealing-key-0123456789abcdefghijklmnopqrstuvwxyz",
    // MACs the audit chain (required in production)
    REDRIVE_AUDIT_KEY: process.env.REDRIVE_AUDIT_KEY ?? "",
    NEXT_TELEMETRY_DISABLED: "1",
    REDRIVE_WORKER: "0",
  };
}
