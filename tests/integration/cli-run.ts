import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `redrive` as an operator would, against `databaseUrl`, and answers with its exit code and output (a
 * non-zero exit is an answer, not a throw). `nodeArgs` go before the script (e.g. the server-side loader).
 */
export async function runCli(
  databaseUrl: string,
  args: string[],
  opts: { env?: Record<string, string>; nodeArgs?: string[] } = {},
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...(opts.nodeArgs ?? []), "bin/redrive.mjs", ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, ...opts.env },
      // a cold CLI start takes seconds on a loaded 2-core machine; the limit only catches a hang
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}
