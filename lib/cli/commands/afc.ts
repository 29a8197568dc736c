// `redrive afc hash` and `redrive afc validate`: NDJSON in on stdin, one output line per input line.
// The per-line logic lives in lib/afc/tap-lines.ts; this file is only streaming and exit codes.
import type { Command } from "commander";
import { hashTapLine, validateTapLine } from "@/lib/afc/tap-lines";
import { readLines, type InputLine } from "../lines";

export function registerAfcCommands(program: Command): void {
  const afc = program.command("afc").description("AFC (fare collection) tap tools");

  afc
    .command("hash")
    .description("print the producers' identity hash (SHA-256 hex) of each raw tap on stdin, one JSON tap per line")
    .addHelpText(
      "after",
      `
Output stays aligned with input: line N of stdout belongs to line N of stdin.
A line that is not JSON (or not a JSON object) prints an EMPTY line on stdout and
{"line": N, "error": "..."} on stderr; processing continues and the exit code is 1.`,
    )
    .action(async () => {
      let failed = false;
      await forEachLine(async (line, n) => {
        const result = line.error === null ? hashTapLine(line.text) : { ok: false as const, error: line.error };
        if (result.ok) return write(process.stdout, `${result.hash}\n`);
        failed = true;
        await write(process.stderr, `${JSON.stringify({ line: n, error: result.error })}\n`);
        await write(process.stdout, "\n");
      });
      if (failed) process.exitCode = 1;
    });

  afc
    .command("validate")
    .description("run the tap gate on each raw tap read from stdin, one JSON tap per line; prints NDJSON")
    .addHelpText(
      "after",
      `
One NDJSON object per input line, in order:
  {"line": N, "valid": true|false, "reason": string|null,
   "failure_class": "transient_schema"|"poison"|null, "event_hash": string|null}
reason/failure_class are null for a valid tap; event_hash is null when the tap is not a JSON object.
A line that is not JSON prints {"line": N, "error": "..."} instead; processing continues and the
exit code is 1. Invalid taps are results, not errors: they do not change the exit code.`,
    )
    .action(async () => {
      let failed = false;
      await forEachLine(async (line, n) => {
        const result = line.error === null ? validateTapLine(line.text, n) : { ok: false as const, output: { line: n, error: line.error } };
        if (!result.ok) failed = true;
        await write(process.stdout, `${JSON.stringify(result.output)}\n`);
      });
      if (failed) process.exitCode = 1;
    });
}

/**
 * Stream stdin line by line (1-based numbers); a trailing newline does not make an extra empty line.
 * Stops quietly when the reader of stdout goes away (`| head`), like other Unix filters.
 */
async function forEachLine(handle: (line: InputLine, lineNumber: number) => Promise<void>): Promise<void> {
  const { lines, close } = readLines(process.stdin);
  let readerGone = false;
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    readerGone = true;
    close();
  };
  process.stdout.on("error", onError);
  try {
    let n = 0;
    for await (const line of lines) {
      if (readerGone) break;
      n += 1;
      await handle(line, n);
    }
  } finally {
    process.stdout.off("error", onError);
  }
}

/** Respect backpressure so a large input piped into a slow reader does not pile up in memory. */
function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (stream.write(text)) return Promise.resolve();
  return new Promise((resolve) => {
    // "close" too: a stream destroyed by EPIPE never drains
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}
