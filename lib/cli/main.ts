import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { CliUsageError } from "./context";
import { groupsFor } from "./groups";
import { configuredMaskRules } from "../masking/config";
import { maskConsole } from "../ops/masked-logs";

// Diagnostics (a worker's log, warnings) are masked; a command's answer on stdout follows its own masking rules.
// A bad environment is reported by the command that reads it (with the variable's name), not here.
try {
  maskConsole(configuredMaskRules(), ["error", "warn"]);
} catch {}

// The reader went away (`redrive export … | head`): stop quietly, as Unix tools do, instead of an unhandled
// 'error' event and a stack trace.
const isEpipe = (err: unknown) => err instanceof Error && (err as NodeJS.ErrnoException).code === "EPIPE";
process.stdout.on("error", (err) => {
  if (isEpipe(err)) process.exit(0);
  throw err;
});

const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

const program = new Command("redrive")
  .description("Redrive: triage and paced replay of dead-lettered spatial and AFC events")
  .version(version, "-V, --version")
  .showHelpAfterError()
  .exitOverride();

for (const register of await Promise.all(groupsFor(process.argv.slice(2)).map((g) => g.load()))) register(program);

try {
  await program.parseAsync(process.argv);
  // Pools and the schema engine can keep the event loop alive for a while after the work is done.
  process.exit(process.exitCode ?? 0);
} catch (err) {
  // Help and version exit 0; commander's usage errors (unknown option, missing argument) exit 2, as ours do.
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  if (isEpipe(err)) process.exit(0);
  if (err instanceof CliUsageError) {
    process.stderr.write(`redrive: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`redrive: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
