import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([".next/**", ".data/**", "lib/generated/**", "node_modules/**", "test-results/**", "playwright-report/**", "tests/artifacts/**", "next-env.d.ts", "scripts/tmp/**", ".bench-tmp/**", ".scratch-replay/**", ".scratch*/**"]),
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/ban-ts-comment": "error",
    },
  },
  {
    // Client code never reaches the database: components get data through the API or server components.
    files: ["components/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@/lib/db/*", "**/lib/db/*", "@/lib/generated/*", "pg", "@prisma/*"], message: "components must not import the database layer" },
          ],
        },
      ],
    },
  },
]);
