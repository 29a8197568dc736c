import { Command, CommanderError } from "commander";
import { CliUsageError } from "./context";
import { groupsFor } from "./groups";

const program = new Command("redrive")
  .description("Redrive: triage and paced replay of dead-lettered spatial and AFC events")
  .showHelpAfterError()
  .exitOverride();

for (const register of await Promise.all(groupsFor(process.argv.slice(2)).map((g) => g.load()))) register(program);

try {
  await program.parseAsync(process.argv);
  // Pools and the schema engine can keep the event loop alive for a while after the work is done.
  process.exit(process.exitCode ?? 0);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  if (err instanceof CliUsageError) {
    process.stderr.write(`redrive: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`redrive: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
