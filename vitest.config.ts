import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Tests run outside React's server bundle, where `server-only` (the marker that keeps a module off the client) is empty.
const alias = [
  { find: /^server-only$/, replacement: fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)) },
  { find: "@", replacement: fileURLToPath(new URL("./", import.meta.url)) },
];

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
          fileParallelism: false,
        },
      },
    ],
  },
});
