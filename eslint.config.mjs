import { readdirSync } from "node:fs";
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// The data path's boundaries, checked by the build (tests/unit/architecture.test.ts shows each rule failing).
const DATABASE = ["@/lib/db/*", "**/db/*", "@/lib/generated/*", "**/generated/**", "pg", "pg-copy-streams", "@prisma/*", "server-only"];
const FRAMEWORK = ["next", "next/*", "react", "react-dom", "react/*", "@tanstack/*"];
const DOMAINS = [
  "dead-letters",
  "replay",
  "forensics",
  "ops",
  "auth",
  "audit",
  "masking",
  "api",
  "cli",
  "sources",
  "seed",
  "startup",
  "net",
  "env",
  "runtime",
  "rules",
];
const domainImports = (except = []) =>
  DOMAINS.filter((d) => !except.includes(d)).flatMap((d) => [
    `@/lib/${d}`,
    `@/lib/${d}/*`,
    `**/lib/${d}/*`,
    `../${d}`,
    `../${d}/*`,
    `../../${d}/*`,
  ]);
// Each sink and each broker type is a folder named for it (lib/replay/sinks/<type>/, lib/sources/<type>/), listed in
// its registry; tests/unit/architecture.test.ts checks the folders and the registries name the same types.
const pluggedTypes = (dir) =>
  readdirSync(new URL(dir, import.meta.url), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
const PLUGGED = new RegExp(`^(${[...pluggedTypes("lib/replay/sinks/"), ...pluggedTypes("lib/sources/")].join("|")})$`);
const TYPE_OPERAND = ":matches([left.property.name='type'], [left.name=/^(type|[a-z]+Type)$/])";
const restrict = (...patterns) => ["error", { patterns }];
const CLI_ONLY = {
  group: ["@/lib/cli", "@/lib/cli/*", "**/lib/cli/*", "../cli/*", "../../cli/*", "../../../cli/*"],
  message: "only the CLI knows the CLI: the engine and the domains do not import it",
};
const NOT_ROUTE_GLUE = {
  group: ["@/lib/api/*", "**/lib/api/*", "../api/*", "../../api/*", "../../../api/*"],
  message: "domains do not import the route glue in lib/api",
};
const NODE_BUILTINS = ["node:*", "fs", "fs/*", "path", "crypto", "child_process", "worker_threads", "stream", "os", "net"];
const SOURCES = (dirs) => dirs.map((d) => `${d}/**/*.{ts,tsx,mjs}`);
const NOT_TESTS = ["**/*.test.ts", "**/*.test.tsx"];

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([
    ".next/**",
    ".data/**",
    "lib/generated/**",
    "node_modules/**",
    "test-results/**",
    "playwright-report/**",
    "tests/artifacts/**",
    "next-env.d.ts",
    "scripts/tmp/**",
    ".bench-tmp/**",
  ]),
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/ban-ts-comment": "error",
    },
  },
  {
    // Neutral vocabulary (JSON, time, the record's kinds and statuses, the error type): every domain may use it,
    // it uses none, and no database or framework.
    files: SOURCES(["lib/json", "lib/time", "lib/vocabulary", "lib/errors"]),
    ignores: NOT_TESTS,
    rules: {
      "no-restricted-imports": restrict(
        { group: [...DATABASE, ...FRAMEWORK], message: "neutral modules import no database and no framework" },
        {
          group: [...domainImports(), "@/lib/spatial/*", "**/lib/spatial/*", "../spatial/*", "@/lib/afc/*", "**/lib/afc/*", "../afc/*"],
          message: "neutral modules (json, time, vocabulary, errors) import no domain",
        },
      ),
    },
  },
  {
    // Pure domain logic: geometry and taps, computed the same in the browser, the server and the CLI.
    files: SOURCES(["lib/spatial", "lib/afc"]),
    ignores: NOT_TESTS,
    rules: {
      "no-restricted-imports": restrict(
        { group: [...DATABASE, ...FRAMEWORK], message: "pure domains (spatial, afc) import no database and no framework" },
        { group: domainImports(), message: "pure domains import only lib/json, lib/time, lib/vocabulary, lib/errors and each other" },
      ),
    },
  },
  {
    // Framework glue lives in app/ and lib/api: domains stay callable from the CLI and the worker.
    files: SOURCES(["lib"]),
    ignores: [
      ...NOT_TESTS,
      "lib/api/**",
      "lib/json/**",
      "lib/time/**",
      "lib/vocabulary/**",
      "lib/errors/**",
      "lib/spatial/**",
      "lib/afc/**",
    ],
    rules: {
      "no-restricted-imports": restrict(
        { group: FRAMEWORK, message: "framework glue (next/*, React) belongs in app/ or lib/api" },
        CLI_ONLY,
        NOT_ROUTE_GLUE,
      ),
    },
  },
  {
    // A contract/ folder holds an API's request and response shapes; the route handlers, the client hooks and
    // OpenAPI share it, so it ships to the browser: no database (the column limits are plain zod), no Node.
    files: ["lib/**/contract/**/*.ts"],
    ignores: NOT_TESTS,
    rules: {
      "no-restricted-imports": restrict(
        {
          group: [...DATABASE, "!**/db/column-limits", ...NODE_BUILTINS],
          message: "a contract/ module ships to the browser: it imports no database, server-only module or Node built-in",
        },
        { group: FRAMEWORK, message: "framework glue (next/*, React) belongs in app/ or lib/api" },
        CLI_ONLY,
        NOT_ROUTE_GLUE,
      ),
    },
  },
  {
    // The API's glue may use the framework, but still knows no CLI.
    files: SOURCES(["lib/api"]),
    ignores: NOT_TESTS,
    rules: {
      "no-restricted-imports": restrict({
        group: ["@/lib/cli", "@/lib/cli/*", "**/lib/cli/*", "../cli/*"],
        message: "the API does not import the CLI",
      }),
    },
  },
  {
    // Only a sink's or a broker type's own folder decides by its type: everything else asks its registry (the
    // plug's words, schema, flags, checks), so adding one is a folder and a registry line.
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "lib/**/*.{ts,tsx}", "scripts/**/*.ts"],
    ignores: [...NOT_TESTS, "lib/sources/**", "lib/replay/sinks/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: `BinaryExpression[operator=/^[!=]==$/][right.type='Literal'][right.value=${PLUGGED}]${TYPE_OPERAND}`,
          message: "a sink or source type is decided in its own folder (lib/replay/sinks/<type>/, lib/sources/<type>/): ask its registry",
        },
        {
          selector: `SwitchCase[test.type='Literal'][test.value=${PLUGGED}]`,
          message: "a sink or source type is decided in its own folder (lib/replay/sinks/<type>/, lib/sources/<type>/): ask its registry",
        },
      ],
    },
  },
  {
    // Client code never reaches the database: components get data through the API or server components.
    files: ["components/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": restrict({ group: DATABASE, message: "components must not import the database layer" }),
    },
  },
]);
