import { Command, CommanderError } from "commander";
import { registerAccountCommands } from "./commands/accounts";
import { registerAfcCommands } from "./commands/afc";
import { registerDbCommands } from "./commands/db";
import { registerForensicsCommands } from "./commands/forensics";
import { registerImportCommands } from "./commands/import";
import { registerGeometryCommands } from "./commands/geometry";
import { registerReplayCommands } from "./commands/replay";
import { CliUsageError } from "./context";

const program = new Command("redrive")
  .description("Redrive: triage and paced replay of dead-lettered spatial and AFC events")
  .showHelpAfterError()
  .exitOverride();

registerDbCommands(program);
registerImportCommands(program);
registerAfcCommands(program);
registerGeometryCommands(program);
registerAccountCommands(program);
registerForensicsCommands(program);
registerReplayCommands(program);

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
