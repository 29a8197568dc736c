import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
// Also sets REDRIVE_AUDIT_KEY for every process that appends to the test database's chain (the seeding in
// scripts/e2e.ts sets the same, the server, the workers specs spawn), or the first under another key is refused.
import { e2eServerEnv } from "./tests/e2e/server-env";

// End-to-end tests run against the production build (scripts/serve.ts, as `npm start` serves it) in Debian's Chromium; never a downloaded
// browser. scripts/e2e.ts prepares a fresh seeded database and the build, then runs `playwright test`.
const port = Number(process.env.E2E_PORT ?? 3100);
// scripts/e2e.ts runs the suite as shards side by side: each keeps its results and report apart.
const shard = process.env.E2E_SHARD ? `/shard-${process.env.E2E_SHARD}` : "";
// Debian's chromium-headless-shell where installed (.ci/run installs it): Chromium's engine without the browser UI
// that the full build's new headless mode renders beside every page (40–55% of a core on 2 cores); the suite's
// specs ran ~15% faster. The full Chromium otherwise, or the one CHROMIUM_PATH names.
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const browserPath = process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: `test-results${shard}`,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: `playwright-report${shard}` }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: "only-on-failure",
    // Recording a trace (screencast and DOM snapshots) for every test makes each about a quarter slower on 2 cores,
    // for traces thrown away when it passes: CI records one on the retry of a failed test; a run here, on failure.
    trace: process.env.CI ? "on-first-retry" : "retain-on-failure",
    launchOptions: {
      executablePath: browserPath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    { name: "chromium", use: { ...devices["Desktop Chrome"], channel: undefined } },
    // The dark theme: only tests tagged @themes run again here, so the whole suite's time grows by those alone.
    { name: "dark", grep: /@themes/, use: { ...devices["Desktop Chrome"], channel: undefined, colorScheme: "dark" } },
  ],
  webServer: {
    command: "node --import ./bin/server-side.mjs --import tsx scripts/serve.ts",
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    env: e2eServerEnv(port),
  },
});
