// `redrive source …`: broker sources from the command line, as admins manage them on /sources. Results a script
// reads (a pull's counts, --json lists) go to stdout; everything else to stderr.
import "server-only";
import type { Command } from "commander";

import type { Actor } from "../../audit/actor";
import type { AuditContext } from "../../auth/audit-context";
import type { Db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { UNSCOPED } from "../../scope/record-scope";
import { createSource, deleteSource, listSources, readSourceConfig, updateSource } from "../../sources/manage-sources";
import { pullNow, removeFromBroker, testSource } from "../../sources/pull-now";
import { SOURCES } from "../../sources/registry";
import type { AnySourceConfigPlug } from "../../sources/source-plug";
import {
  CreateSourceBody,
  createSourceBodyOf,
  PatchSourceBody,
  PullBody,
  SourceNameSchema,
  type SourceView,
} from "../../sources/source-schemas";
import { CliUsageError, connectCli, optionsError, osAccount } from "../context";
import { printAnswer, printLines } from "../output";

/** Body fields → the flags that set them, so a 422's path names the flag (each type's option flags added below). */
const BODY_FLAGS: Record<string, string> = {
  options: "options",
  url: "--url",
  username: "--username",
  password: "--password",
  kind: "--kind",
};

/** An option's flag: its name in kebab case (minIdleMs → --min-idle-ms). */
const flagOf = (option: string) => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

interface OptionFlag {
  option: string;
  arg: string;
  /** each type's help, "nats: …; redis: …" */
  help: string;
  numeric: boolean;
}

/** Every option flag of `plugs`' types, once each, in the order the types list them. */
function optionFlags(plugs: readonly AnySourceConfigPlug[]): OptionFlag[] {
  const flags = new Map<string, OptionFlag>();
  for (const p of plugs) {
    for (const row of p.form.rows) {
      for (const f of row.fields) {
        const help = `${p.type}: ${f.cli.help}`;
        const known = flags.get(f.name);
        if (known) known.help += `; ${help}`;
        else flags.set(f.name, { option: f.name, arg: f.cli.arg, help, numeric: f.value === "number" });
      }
    }
  }
  return [...flags.values()];
}

const flagNames = (flags: readonly OptionFlag[]): Record<string, string> => ({
  ...Object.fromEntries(flags.map((f) => [`options.${f.option}`, flagOf(f.option)])),
  ...BODY_FLAGS,
});
const FLAGS = flagNames(optionFlags(SOURCES));

const cliActor = (): Actor => ({ id: null, email: `cli:${osAccount()}`, role: "system" });
const auditContext = (): AuditContext => ({ actor: cliActor(), now: new Date(), requestId: null });
const say = (msg: string) => process.stderr.write(`${msg}\n`);

function sourceName(value: string): string {
  const r = SourceNameSchema.safeParse(value);
  if (!r.success) throw new CliUsageError(`<name>: ${r.error.issues[0]?.message ?? "invalid"}`);
  return r.data;
}

async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const { db, close } = await connectCli();
  try {
    return await fn(db);
  } catch (err) {
    // A 422 from the domain names a field: a usage error (exit 2) naming its flag.
    if (err instanceof AppError && err.code === "validation_failed")
      throw optionsError(
        err.issues.map((i) => ({ path: i.path.split("."), message: i.message })),
        FLAGS,
      );
    if (err instanceof AppError && err.code === "not_found") throw new CliUsageError(err.message);
    throw err;
  } finally {
    await close();
  }
}

/** The options a type takes, from the flags given (numbers parsed; anything given to the wrong type is refused). */
function optionsFrom(raw: Record<string, unknown>, flags: readonly OptionFlag[]): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const { option, numeric } of flags) {
    const value = raw[option];
    if (value === undefined) continue;
    options[option] = numeric && typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
  }
  return options;
}

function stateLine(s: SourceView): string {
  const st = s.state;
  const health = !s.enabled
    ? "paused"
    : st.connected === null
      ? "not tried yet"
      : st.connected
        ? "connected"
        : `error: ${st.lastError ?? "?"}`;
  const waiting = st.waiting === null ? "?" : String(st.waiting);
  return `${s.name}\t${s.type}\t${s.kind}\t${health}\twaiting ${waiting}\tpulled today ${st.pulledToday}\ttotal ${st.totals.pulled}\t${s.url}`;
}

/** The types' option flags, the same on `add` and `update`. */
function withOptionFlags(cmd: Command, flags: readonly OptionFlag[]): Command {
  for (const f of flags) cmd.option(`${flagOf(f.option)} ${f.arg}`, f.help);
  return cmd;
}

/** `plugs`: the registry's broker types (a test registers one more). */
export function registerSourceCommands(program: Command, plugs: readonly [AnySourceConfigPlug, ...AnySourceConfigPlug[]] = SOURCES): void {
  const flags = optionFlags(plugs);
  const FLAGS = flagNames(flags);
  const CreateBody = plugs === SOURCES ? CreateSourceBody : createSourceBodyOf(plugs);
  const source = program.command("source").description("broker sources: where dead letters are pulled from and replayed back to");

  withOptionFlags(
    source
      .command("add")
      .description("add a source (admins' /sources does the same); its URL is sealed at rest")
      .requiredOption("--name <name>", "a name for the source")
      .requiredOption("--type <type>", plugs.map((p) => p.type).join(" | "))
      .requiredOption(
        "--url <url>",
        "the broker's URL: amqp://, nats://, redis://, kafka://[user:password@]host:port[,host:port] (kafkas:// for TLS); sqs: the dead-letter queue's https:// URL",
      )
      .requiredOption("--kind <kind>", "spatial | afc: how message bodies are read"),
    flags,
  )
    .option("--disabled", "add it paused")
    .action(async (raw: Record<string, unknown>) => {
      const body = {
        name: raw.name,
        type: raw.type,
        url: raw.url,
        kind: raw.kind,
        options: optionsFrom(raw, flags),
        enabled: raw.disabled !== true,
      };
      const parsed = CreateBody.safeParse(body);
      if (!parsed.success) throw optionsError(parsed.error.issues, FLAGS);
      await withDb(async (db) => {
        // Only the registry's types reach here outside a test (which registers one more to read the help).
        const created = await createSource(db.pool, parsed.data as CreateSourceBody, auditContext());
        say(`added ${created.type} source ${created.name} (${created.url})`);
        try {
          const { waiting } = await testSource(db.pool, created.name);
          say(`connected: ${waiting ?? "?"} waiting`);
        } catch (err) {
          say(`not connected yet (the workers retry with backoff): ${(err as Error).message}`);
        }
      });
    });

  withOptionFlags(
    source
      .command("update <name>")
      .description(
        "change a source in place (it keeps its history): URL, credentials, kind or options; the option flags given replace those options, the others stay",
      )
      .option("--url <url>", "a new broker URL; without a user name or password it keeps the stored ones")
      .option("--username <name>", "replace the stored user name only (SQS: the access key id)")
      .option("--password <password>", 'replace the stored password only (SQS: the secret key; "" removes it)')
      .option("--kind <kind>", "spatial | afc: how message bodies are read"),
    flags,
  ).action(async (name: string, raw: Record<string, unknown>) => {
    const n = sourceName(name);
    const given = optionsFrom(raw, flags);
    const patch = {
      ...(raw.url !== undefined ? { url: raw.url } : {}),
      ...(raw.username !== undefined ? { username: raw.username } : {}),
      ...(raw.password !== undefined ? { password: raw.password } : {}),
      ...(raw.kind !== undefined ? { kind: raw.kind } : {}),
    };
    await withDb(async (db) => {
      // The flags given change those options; the stored ones stay (PATCH replaces the whole object).
      const current = Object.keys(given).length ? await readSourceConfig(db.pool, n) : undefined;
      const parsed = PatchSourceBody.safeParse({ ...patch, ...(current ? { options: { ...current.options, ...given } } : {}) });
      if (!parsed.success) throw optionsError(parsed.error.issues, FLAGS);
      const updated = await updateSource(db.pool, n, parsed.data, auditContext());
      say(`updated ${updated.type} source ${updated.name} (${updated.url})`);
      try {
        const { waiting } = await testSource(db.pool, updated.name);
        say(`connected: ${waiting ?? "?"} waiting`);
      } catch (err) {
        say(`not connected (the workers retry with backoff): ${(err as Error).message}`);
      }
    });
  });

  source
    .command("list")
    .description("every source with its state")
    .option("--json", "one JSON array on stdout")
    .action(async (raw: { json?: boolean }) => {
      await withDb(async (db) => {
        const sources = await listSources(db.pool, new Date(), "manager", UNSCOPED);
        if (raw.json) printAnswer(sources, { json: true, compact: true });
        else if (sources.length === 0) say("no sources (add one with `redrive source add`)");
        else printLines(sources, stateLine);
      });
    });

  source
    .command("test <name>")
    .description("connect, check what the source needs on the broker, and print what waits")
    .action(async (name: string) => {
      const n = sourceName(name);
      await withDb(async (db) => {
        try {
          const { waiting } = await testSource(db.pool, n);
          process.stdout.write(`${n}: connected, ${waiting === null ? "an unknown number of" : waiting} dead letter(s) waiting\n`);
        } catch (err) {
          say(err instanceof Error ? err.message : String(err));
          process.exitCode = 1;
        }
      });
    });

  source
    .command("pull <name>")
    .description(
      "pull now: store what waits, acknowledge it after the commit; prints {pulled, created, duplicates, unreadable, failedAgain?} (run by the worker holding the source's lease, if one does: this waits for it)",
    )
    .option("--max <n>", "pull at most this many")
    .action(async (name: string, raw: { max?: string }) => {
      const n = sourceName(name);
      const parsed = PullBody.safeParse(raw.max === undefined ? {} : { max: /^\d+$/.test(raw.max) ? Number(raw.max) : raw.max });
      if (!parsed.success) throw optionsError(parsed.error.issues);
      await withDb(async (db) => {
        const counts = await pullNow(db.pool, n, {
          ...(parsed.data.max !== undefined ? { max: parsed.data.max } : {}),
          actor: cliActor(),
          requestId: null,
        });
        printAnswer(counts, { json: true, compact: true });
      });
    });

  for (const [verb, enabled] of [
    ["pause", false],
    ["resume", true],
  ] as const) {
    source
      .command(`${verb} <name>`)
      .description(enabled ? "pull the source again" : "stop pulling the source (it keeps its state)")
      .action(async (name: string) => {
        const n = sourceName(name);
        await withDb(async (db) => {
          await updateSource(db.pool, n, { enabled }, auditContext());
          say(`${n} ${enabled ? "resumed" : "paused"}`);
        });
      });
  }

  source
    .command("remove <name>")
    .description("remove the source; its records keep their origin")
    .action(async (name: string) => {
      const n = sourceName(name);
      await withDb(async (db) => {
        const removed = await deleteSource(db.pool, n, auditContext());
        const broker = await removeFromBroker(removed);
        say(`removed ${n}${broker.cleaned ? "" : ` (left on the broker: ${broker.error})`}`);
      });
    });
}
