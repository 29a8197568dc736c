// `redrive replay create|approve|start|pause|resume|cancel|status|list|approval-limit`: the replay API for
// operators. The CLI talks to the database directly, so it acts as a named user (--as <email>): that user's role
// must allow the action, the audit trail records them as the actor, and four-eyes still applies (the creator
// cannot approve, unless the batch is within the admin's single-approver limit). Batch ids go to stdout, so
// `ID=$(redrive replay create …)` works; progress goes to stderr.
import { plural } from "../../vocabulary/plural";
import { UNSCOPED } from "../../scope/record-scope";
import { readRecordScope } from "../../auth/teams/read-scope";
import "server-only";
import { hostname } from "node:os";
import type { Command } from "commander";
import { bigintIdSchema, isBigintId } from "../../db/column-limits";
import { can, isRole, type Permission } from "../../auth/permissions";
import { findUserByEmail } from "../../auth/users";
import type { Db } from "../../db/client";
import { createBatch, freshenReplayStatistics, previewBatch } from "../../replay/batch/create-batch";
import { isUnpaced } from "../../replay/pacing/gcra";
import { applyBatchAction, type ActingUser } from "../../replay/batch/apply-batch-action";
import { BATCH_STATUSES, CreateBatchBody, ListBatchesQuery, SingleApproverBody, type BatchView } from "../../replay/batch/batch-schemas";
import { readSingleApproverSetting, setSingleApproverLimit } from "../../replay/batch/single-approver";
import { ACTION_PERMISSION, BATCH_ACTIONS, singleApproverAllowed, type BatchAction } from "../../replay/batch/batch-states";
import { getBatch, listBatches } from "../../replay/batch/read-batches";
import { CliUsageError, optionsError, osAccount, withCliDb } from "../context";
import { formatBatch, formatDuration } from "./replay-format";
import { checkingNotice, SINKS, sinkPlug, urlHelp } from "../../replay/sinks/registry";
import type { AnySinkConfigPlug } from "../../replay/sinks/sink-plug";
import { registerWorkerCommands } from "./worker";
import { sinkFlagNames, sinkFlagOptions } from "../sink-flags";
import { commaList, recordFilterOf, recordFilterOptions, type RecordFilterFlags } from "../record-filter-options";
import { READ_AS_HELP, readingAs } from "../read-as";
import { printAnswer, printLines } from "../output";

const say = (msg: string) => process.stderr.write(`${msg}\n`);

/** How long a batch takes at its rate, or that the rate does not pace it (an unpaced drain goes as fast as it can). */
function howLong(count: number, rate: number, pageSize: number): string {
  if (isUnpaced(rate, pageSize)) return `unpaced at ${rate}/s: as fast as the workers and the sink take it`;
  return `about ${formatDuration(count / rate)} at ${rate}/s`;
}

/** The user named by --as, checked like the API checks a signed-in user. */
async function actingAs(db: Db, email: string | undefined, permission: Permission): Promise<ActingUser> {
  if (!email) throw new CliUsageError("--as <email> is required: the supervisor on whose behalf this is done (and audited)");
  const user = await findUserByEmail(db.pool, email);
  if (!user) throw new CliUsageError(`--as: no user with e-mail ${email}`);
  if (user.disabled) throw new CliUsageError(`--as: ${email} is disabled`);
  if (!isRole(user.role) || !can(user.role, permission)) throw new Error(`--as: ${email} (${user.role}) lacks permission ${permission}`); // a refusal: exit 1
  // The user's teams bound what they batch and approve here as in the API.
  return { userId: user.id, email: user.email, role: user.role, scope: await readRecordScope(db.pool, user.id) };
}

interface CreateOptions extends RecordFilterFlags {
  ids?: string[];
  filterStatus?: string[];
  rate: string;
  sink: string;
  /** --url and each sink's own flags (SinkConfigPlug.flags), read by its plug's fromFlags */
  [sinkFlag: string]: unknown;
  pageSize?: string;
  maxReplays?: string;
  maxAttempts?: string;
  failureThreshold?: string;
  repairMethod?: string;
  repairPolicy?: string;
  as?: string;
  preview?: boolean;
  json?: boolean;
}

/** The flag each field of the batch body comes from, so an error names what the user typed (and each sink's flags). */
const FLAG_OF: Record<string, string> = {
  ratePerSecond: "--rate",
  pageSize: "--page-size",
  maxReplays: "--max-replays",
  maxAttempts: "--max-attempts",
  failureThreshold: "--failure-threshold",
  "repair.method": "--repair-method",
  "repair.policy": "--repair-policy",
  "sink.type": "--sink",
  "sink.url": "--url",
  ids: "--ids",
  "filter.status": "--filter-status",
  "filter.kind": "--kind",
  "filter.class": "--class",
  "filter.source": "--source",
  "filter.origin": "--origin",
  "filter.reason": "--reason",
  "filter.from": "--from",
  "filter.to": "--to",
  "filter.q": "--q",
  "filter.bbox": "--bbox",
};

function flagOf(path: string, names: Readonly<Record<string, string>>): string {
  for (let p = path; p !== ""; p = p.includes(".") ? p.slice(0, p.lastIndexOf(".")) : "") {
    const flag = names[p];
    if (flag) return flag;
  }
  return path || "options";
}

function createBody(o: CreateOptions, sinks: readonly AnySinkConfigPlug[]): unknown {
  const num = (v: unknown, flag: string) => {
    if (v === undefined) return undefined;
    if (String(v).trim() === "" || !Number.isFinite(Number(v)))
      throw new CliUsageError(`${flag}: expected a number, got ${JSON.stringify(v)}`);
    return Number(v);
  };
  const filter = { ...(o.filterStatus === undefined ? {} : { status: o.filterStatus }), ...recordFilterOf(o) };
  const sink = sinks.find((p) => p.type === o.sink)?.fromFlags({ ...o }, num) ?? { type: o.sink };
  return {
    ...(o.ids ? { ids: o.ids } : { filter }),
    sink: JSON.parse(JSON.stringify(sink)), // drops undefined fields, so defaults apply
    ratePerSecond: num(o.rate, "--rate"),
    pageSize: num(o.pageSize, "--page-size"),
    maxReplays: num(o.maxReplays, "--max-replays"),
    maxAttempts: num(o.maxAttempts, "--max-attempts"),
    failureThreshold: num(o.failureThreshold, "--failure-threshold"),
    repair: { method: o.repairMethod, policy: o.repairPolicy },
  };
}

function parseBody(raw: unknown, names: Readonly<Record<string, string>>) {
  const r = CreateBatchBody.safeParse(JSON.parse(JSON.stringify(raw)));
  if (r.success) return r.data;
  throw new CliUsageError(r.error.issues.map((i) => `${flagOf(i.path.map(String).join("."), names)}: ${i.message}`).join("; "));
}

function print(view: BatchView, json: boolean | undefined): void {
  printAnswer(view, { json, text: (v) => `${formatBatch(v)}\n` });
}

/** `replay …`, `worker` and `ledger import`. */
/** `sinks`: the registry's sink types (a test registers one more). */
export function registerReplayCommands(program: Command, sinks: readonly AnySinkConfigPlug[] = SINKS): void {
  registerWorkerCommands(program);
  const replay = program.command("replay").description("paced, idempotent replay batches of approved dead letters");

  const selection = replay
    .command("create")
    .description("create a draft batch from approved records (--ids, or a filter); prints its id")
    .option("--ids <ids>", "record ids, comma-separated (repeatable)", commaList)
    .option("--filter-status <s>", "filter: status (must include approved)", commaList);
  const create = recordFilterOptions(selection, "filter: ")
    .requiredOption("--rate <n>", "records per second (for the whole batch, across all workers)")
    .option("--sink <type>", sinks.map((p) => p.cliHelp).join(" | "), "ledger")
    .option("--url <url>", urlHelp(sinks));
  const names = { ...FLAG_OF, ...sinkFlagNames(sinks) };
  sinkFlagOptions(create, sinks, true)
    .option("--page-size <n>", "items claimed at once")
    .option("--max-replays <n>", "poison when a record was replayed this often")
    .option("--max-attempts <n>", "failed submissions before an item becomes poison")
    .option("--failure-threshold <0..1>", "pause the batch when this share of the last 100 items fails")
    .option("--repair-method <m>", "spatial: linework | structure")
    .option("--repair-policy <p>", "spatial: accept | largest-part | drop")
    .option("--as <email>", "the supervisor creating the batch")
    .option("--preview", "show what would be replayed, in which order and how long it takes; create nothing")
    .option("--json", "print the batch as JSON")
    .action(async (o: CreateOptions) => {
      const body = parseBody(createBody(o, sinks), names);
      await withCliDb(async (db) => {
        if (o.preview) {
          // The operator holds the database: a preview is company-wide unless --as names whose teams bound it.
          const { scope } = await readingAs(db, o.as, "replays:manage");
          const selection = body.ids ? { ids: body.ids, scope } : { filter: body.filter ?? {}, scope };
          await freshenReplayStatistics(db.pool);
          const p = await previewBatch(db.pool, selection, { origin: sinkPlug(body.sink.type).needsOrigin });
          printAnswer({ ...p, estimatedSeconds: p.count / body.ratePerSecond }, { json: true });
          say(`${p.count} ${plural(p.count, "record")}, oldest observation first; ${howLong(p.count, body.ratePerSecond, body.pageSize)}`);
          return;
        }
        const user = await actingAs(db, o.as, "replays:manage");
        const checking = checkingNotice(body.sink);
        if (checking) say(checking);
        const created = await createBatch(db.pool, body, user, { now: new Date(), requestId: cliRequestId() });
        const skipped = Object.entries(created.skipped)
          .filter(([, n]) => n > 0)
          .map(([k, n]) => `${n} ${k}`);
        const { limit } = await readSingleApproverSetting(db.pool);
        say(
          `created draft batch ${created.id}: ${created.total} ${plural(created.total, "record")}${skipped.length ? ` (left out: ${skipped.join(", ")})` : ""}; ` +
            `${howLong(created.total, body.ratePerSecond, body.pageSize)}; ` +
            (singleApproverAllowed(created.total, limit)
              ? `you may approve it yourself (the admin allows one supervisor for batches of up to ${limit} record${limit === 1 ? "" : "s"})`
              : "another supervisor must approve it"),
        );
        if (o.json) print(await getBatch(db.pool, UNSCOPED, created.id, new Date()), true);
        else process.stdout.write(`${created.id}\n`);
      });
    });

  for (const action of BATCH_ACTIONS) {
    replay
      .command(action)
      .argument("<id>", "batch id")
      .requiredOption(
        "--as <email>",
        action === "approve"
          ? "the approving supervisor (not the creator, unless within the admin's single-approver limit)"
          : "the supervisor doing it",
      )
      .option("--json", "print the batch as JSON")
      .description(`${action} a batch`)
      .action(async (id: string, o: { as: string; json?: boolean }) => {
        const batchId = bigintIdSchema("must be a batch id").safeParse(id);
        if (!batchId.success) throw new CliUsageError(`${id}: not a batch id`);
        await withCliDb(async (db) => {
          const user = await actingAs(db, o.as, ACTION_PERMISSION[action as BatchAction]);
          const r = await applyBatchAction(db.pool, batchId.data, action, user, { now: new Date(), requestId: cliRequestId() });
          await r.itemsCancelled; // before the pool closes
          say(`batch ${id}: ${r.status}${r.cancelledItems ? ` (${r.cancelledItems} waiting items cancelled)` : ""}`);
          if (o.json) print(await getBatch(db.pool, UNSCOPED, batchId.data, new Date()), true);
        });
      });
  }

  replay
    .command("approval-limit")
    .argument(
      "[limit]",
      "set it: batches of at most this many records may be approved by their creator alone; 0 = four eyes for every batch",
    )
    .option("--as <email>", "the admin changing it (audited); needed to set it")
    .description("show or set the single-approver limit for replay batches")
    .action(async (limit: string | undefined, o: { as?: string }) => {
      await withCliDb(async (db) => {
        if (limit !== undefined) {
          const body = SingleApproverBody.safeParse({ limit: /^\d+$/.test(limit) ? Number(limit) : limit });
          if (!body.success) throw new CliUsageError(`limit: ${body.error.issues[0]?.message ?? "must be a whole number, 0 or more"}`);
          if (!o.as) throw new CliUsageError("--as <email> is required to set the limit: the admin on whose behalf (audited)");
          const user = await actingAs(db, o.as, "settings:manage");
          await setSingleApproverLimit(db.pool, body.data.limit, {
            actor: { id: user.userId, email: user.email, role: user.role },
            requestId: cliRequestId(),
            now: new Date(),
          });
        }
        const s = await readSingleApproverSetting(db.pool);
        process.stdout.write(`${s.limit}\n`);
        say(
          s.limit === 0
            ? "every replay batch needs a second approver (four eyes)"
            : `batches of up to ${s.limit} record${s.limit === 1 ? "" : "s"} may be approved by their creator alone${s.updatedBy ? ` (set by ${s.updatedBy}, ${s.updatedAt})` : ""}`,
        );
      });
    });

  replay
    .command("status")
    .argument("<id>", "batch id")
    .option("--json", "print as JSON")
    .option("--watch", "print every second until the batch finishes")
    .option("--as <email>", READ_AS_HELP)
    .description("a batch's progress: counts per outcome, rate, ETA")
    .action(async (id: string, o: { json?: boolean; watch?: boolean; as?: string }) => {
      if (!isBigintId(id)) throw new CliUsageError(`${id}: not a batch id`);
      await withCliDb(async (db) => {
        const { scope } = await readingAs(db, o.as);
        for (;;) {
          const view = await getBatch(db.pool, scope, id, new Date());
          print(view, o.json);
          if (!o.watch || ["completed", "cancelled", "failed"].includes(view.status)) return;
          await new Promise((r) => setTimeout(r, 1000));
        }
      });
    });

  replay
    .command("list")
    .option("--status <s>", `only batches in this status (${BATCH_STATUSES.join(", ")})`)
    .option("--limit <n>", "at most this many", "50")
    .option("--json", "print as JSON")
    .option("--as <email>", READ_AS_HELP)
    .description("replay batches, newest first")
    .action(async (o: { status?: string; limit: string; json?: boolean; as?: string }) => {
      const q = ListBatchesQuery.safeParse({ status: o.status, limit: o.limit }); // the API's own query: the same limits
      if (!q.success) throw optionsError(q.error.issues);
      await withCliDb(async (db) => {
        const { scope } = await readingAs(db, o.as);
        const batches = await listBatches(db.pool, scope, q.data, new Date());
        if (o.json) printAnswer(batches, { json: true });
        else if (batches.length > 0) printLines(batches, (b) => formatBatch(b, { oneLine: true }));
        // Said on stderr: stdout stays empty for scripts reading one batch per line.
        else process.stderr.write(`no replay batches${q.data.status ? ` in status ${q.data.status}` : ""}\n`);
      });
    });
}

/**
 * What the audit trail records as the request of a CLI action taken `--as` a user: that it came from the CLI, and
 * the operating-system account and machine it ran on (the e-mail says whose role it used, not who typed it).
 */
function cliRequestId(): string {
  return `cli:${osAccount()}@${hostname()}`;
}
