import "server-only";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import type { SchemaEngine } from "@prisma/schema-engine-wasm";
import { readSchema } from "./migration-files";
import { MigrationPgAdapterFactory } from "./pg-adapter";

// The native schema engine cannot be downloaded on these machines; Prisma's WebAssembly build of the same
// engine reads and writes the same prisma/migrations folders and _prisma_migrations table.

type EngineModule = typeof import("@prisma/schema-engine-wasm");
let engineModule: Promise<EngineModule> | undefined;

/** A Rust panic inside the engine reports its message here before the call fails. */
const panics: string[] = [];
(globalThis as unknown as { PRISMA_WASM_PANIC_REGISTRY: { set_message(m: string): void } }).PRISMA_WASM_PANIC_REGISTRY = {
  set_message: (m: string) => {
    panics.push(m);
    console.error(`[schema-engine] panic: ${m}`);
  },
};

/** The package imports its .wasm as an ES module, which Node 20 cannot; instantiate it by hand instead. */
function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= (async () => {
    const require = createRequire(import.meta.url);
    const pkgDir = join(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"), "..");
    const bg = (await import("@prisma/schema-engine-wasm/schema_engine_bg")) as unknown as EngineModule & {
      __wbg_set_wasm(exports: WebAssembly.Exports): void;
    };
    const bytes = await readFile(join(pkgDir, "schema_engine_bg.wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, {
      "./schema_engine_bg.js": bg as unknown as WebAssembly.ModuleImports,
    });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bg;
  })();
  return engineModule;
}

/** Runs `fn` with an engine bound to `url`, always freeing the engine and closing its pools. */
export async function withSchemaEngine<T>(url: string, fn: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  const mod = await loadEngineModule();
  const schema = await readSchema();
  const factory = new MigrationPgAdapterFactory(url);
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  const logs: string[] = [];
  const engine = await mod.SchemaEngine.new({ datamodels: [[schema.path, schema.content]] }, (msg: string) => logs.push(msg), bound);
  try {
    return await fn(engine);
  } catch (err) {
    const panic = panics.splice(0).join("\n");
    throw new Error(
      `schema engine: ${describe(err)}${panic ? `\npanic: ${panic}` : ""}${logs.length ? `\n${logs.slice(-5).join("\n")}` : ""}`,
    );
  } finally {
    engine.free();
    await factory.close();
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && err !== null) return JSON.stringify(err);
  return String(err);
}

export const NO_FILTER = { externalTables: [], externalEnums: [] };
