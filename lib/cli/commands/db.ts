import type { Command } from "commander";
import { z } from "zod";
import { connectCli, optionsError } from "../context";

const SeedOptions = z.object({
  count: z.coerce.number().int().min(0).max(10_000_000),
  seed: z.coerce.number().int().min(0).default(42),
  reset: z.boolean().default(false),
});

export function registerDbCommands(program: Command): void {
  const db = program.command("db").description("database: migrations and demo data");

  db.command("migrate")
    .description("apply pending migrations from prisma/migrations")
    .action(async () => {
      const { close } = await connectCli({ migrate: true });
      await close();
      process.stderr.write("migrations are up to date\n");
    });

  db.command("migrate-create")
    .argument("<name>", "migration name, e.g. add_alerts")
    .description("write a new migration for the difference between schema.prisma and prisma/migrations")
    .action(async (name: string) => {
      const { db: conn, close } = await connectCli({ migrate: true });
      try {
        const { createMigration } = await import("../../db/migrate");
        const dir = await createMigration(conn.url, name, new Date());
        process.stdout.write(dir ? `created prisma/migrations/${dir}\n` : "schema and migrations agree: nothing to do\n");
      } finally {
        await close();
      }
    });

  db.command("seed")
    .description("insert deterministic demo data (and the demo accounts)")
    .option("--count <n>", "number of dead letters to generate", "2000")
    .option("--seed <n>", "random seed", "42")
    .option("--reset", "delete existing dead letters, batches and ledger first")
    .action(async (opts: Record<string, unknown>) => {
      const parsed = SeedOptions.safeParse(opts);
      if (!parsed.success) throw optionsError(parsed.error.issues);
      const { db: conn, close } = await connectCli({ migrate: true });
      try {
        const { seedDemo } = await import("../../seed/seed");
        await seedDemo(conn, { ...parsed.data, log: (m) => process.stderr.write(`${m}\n`) });
      } finally {
        await close();
      }
    });
}
