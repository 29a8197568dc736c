import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Tests run outside React's server bundle, where `server-only` (the marker that keeps a module off the client) is empty.
const alias = [
  { find: /^server-only$/, replacement: fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)) },
  { find: "@", replacement: fileURLToPath(new URL("./", import.meta.url)) },
];

// Vitest's default in a run is one worker fewer than the cores, which on a 2-core machine is one. The integration
// files spend part of their time waiting on PostgreSQL, brokers and timers, so they run at least two at a time.
const integrationWorkers = Math.max(2, availableParallelism());

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "components/**/*.test.ts", "tests/unit/**/*.test.ts"],
          exclude: ["node_modules/**"],
          environment: "node",
          // A worker thread starts faster than a child process, and each of the ~170 files gets a fresh one: the
          // suite took 70 s on threads against 97 s on forks on 2 cores.
          pool: "threads",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          // replay-chaos.test.ts is the small crash-safety run (the full one is `npm run test:chaos`).
          environment: "node",
          globalSetup: ["tests/integration/global-setup.ts"],
          // The tests' sinks and webhooks listen on loopback, which the outbound rule refuses unless allowed
          // (lib/net/outbound-guard.ts); tests/integration/outbound.test.ts checks the default without it.
          env: { REDRIVE_OUTBOUND_ALLOW_PRIVATE: "127.0.0.1,::1" },
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Files run side by side: each has its own database (tests/integration/helpers.ts), broker names carry a
          // random suffix, and the servers a file stops and restarts are its own (embedded PostgreSQL, nats-server,
          // redis-server) on free ports.
          maxWorkers: integrationWorkers,
        },
      },
    ],
  },
});
