import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = { "@": fileURLToPath(new URL("./", import.meta.url)) };

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "components/**/*.test.ts", "tests/unit/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "node_modules/**"],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts", "lib/**/*.int.test.ts"],
          // The small chaos run is not reliable yet on a loaded 2-core machine (see issue 7's note): it runs on
          // its own with `npm run test:chaos:small`, the full one with `npm run test:chaos`.
          exclude: ["tests/integration/replay-chaos.test.ts", "node_modules/**"],
          environment: "node",
          globalSetup: ["tests/integration/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "chaos",
          include: ["tests/integration/replay-chaos.test.ts"],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
