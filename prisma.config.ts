import { defineConfig } from "prisma/config";

// Only `prisma generate` runs through the Prisma CLI here; migrations are applied by lib/db/migrate.ts with
// the WebAssembly schema engine (the native one cannot be downloaded offline). Pointing the CLI at an existing
// executable stops it from trying to download the native engine for generate/validate/format.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
