// `redrive rule list|show|create|dry-run|approve|disable|apply|resume`: triage rules, as /rules and /api/rules offer them.
// Changes act as a named user (--as <email>), recorded as the audit actor; the four-eyes rule and the permissions
// are lib/rules' own, the same as over the API. A dry run and an apply run here, to the end, and print their counts.
import "server-only";
import type { Command } from "commander";
import { sinkNeedsOrigin } from "../../replay/sinks/registry";
import { notReplayableToOrigin } from "../../replay/sinks/origin/origin-destinations";
import { isRole } from "../../auth/permissions";
import { findUserByEmail } from "../../auth/users";
import type { Db } from "../../db/client";
import { createRuleJob, runRuleJob } from "../../dead-letters/rules/rule-jobs";
import { approveRule, createRule, getRule, listRules, patchRule, resumeRule, type RuleContext } from "../../rules/rules";
import { CreateRuleBodySchema, RuleIdSchema, type RuleJobView, type RuleView } from "../../rules/rule-schemas";
import { plural } from "../../vocabulary/plural";
import { STANDING_REPLAY } from "../../replay/batch/standing-rules";
import { CliUsageError, optionsError, osAccount, withCliDb } from "../context";
import { READ_AS_HELP, readingAs } from "../read-as";
import { readRecordScope } from "../../auth/teams/read-scope";
import { printAnswer } from "../output";

const say = (msg: string) => process.stderr.write(`${msg}\n`);

async function actingAs(db: Db, email: string | undefined): Promise<RuleContext> {
  if (!email) throw new CliUsageError("--as <email> is required: the supervisor on whose behalf this is done (and audited)");
  const user = await findUserByEmail(db.pool, email);
  if (!user) throw new CliUsageError(`--as: no user with e-mail ${email}`);
  if (user.disabled) throw new CliUsageError(`--as: ${email} is disabled`);
  if (!isRole(user.role)) throw new CliUsageError(`--as: ${email} has no known role`);
  return {
    standing: STANDING_REPLAY,
    actor: { id: user.id, email: user.email, role: user.role },
    role: user.role,
    scope: await readRecordScope(db.pool, user.id),
    requestId: `cli:${osAccount()}@rule`,
    now: new Date(),
  };
}

function ruleId(raw: string): string {
  const r = RuleIdSchema.safeParse(raw);
  if (!r.success) throw new CliUsageError(`<id>: ${r.error.issues[0]?.message ?? "invalid"}`);
  return r.data;
}

function versionOf(raw: string | undefined): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new CliUsageError("<version>: a version number (see rule show)");
  return n;
}

const describeAction = (r: Pick<RuleView, "action">) =>
  r.action.type === "quarantine" ? `quarantine (${r.action.reason})` : r.action.type;

/** Pure: rules as an aligned text table, one line each. */
export function ruleTable(rules: RuleView[]): string {
  const rows = [
    ["ID", "NAME", "STATUS", "VERSION", "ACTIVE", "ACTION", "TODAY", "WEEK", "MATCH"],
    ...rules.map((r) => [
      r.id,
      r.name,
      r.status,
      String(r.version),
      r.activeVersion === null ? "-" : String(r.activeVersion),
      describeAction(r),
      String(r.stats.decidedToday),
      String(r.stats.decidedThisWeek),
      JSON.stringify(r.match),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n") + "\n";
}

/** Pure: a rule's standing replay in a few lines (its sink and rate, its flow, what became of its records). */
export function standingText(r: RuleView): string {
  if (!r.replay && !r.standing) return "";
  const lines: string[] = [];
  if (r.replay) {
    const canary = r.replay.canary
      ? `, canary: first ${r.replay.canary.count} items, pause above ${r.replay.canary.maxFailureRate * 100}% failed`
      : "";
    lines.push(`standing replay (v${r.version}): ${r.replay.sinkText} at ${r.replay.ratePerSecond}/s${canary}`);
  }
  if (r.standing) {
    const s = r.standing;
    const canary = s.canary ? `, canary ${s.canary.state}` : "";
    lines.push(
      `flow: batch ${s.batchId} (v${s.version}) ${s.status}${s.open ? "" : ", closed to new records"}${canary}${s.statusReason ? ` — ${s.statusReason}` : ""}`,
    );
  }
  const o = r.stats.replay;
  lines.push(
    `replayed: ${o.joined} joined, ${o.waiting} waiting, ${o.sending} sending, ${o.retrying} retrying (the canary counts them as failed), ` +
      `${o.applied} applied, ${o.duplicate} duplicate (absorbed by dedup), ${o.failed} failed, ${o.dropped} dropped, ${o.cancelled} cancelled` +
      `${o.notReplayable > 0 ? `, ${o.notReplayable} approved but not replayable` : ""}; ${o.failedAfterReplay} failed again after replay (7 days)`,
  );
  return `${lines.join("\n")}\n`;
}

/** Pure: a dry run's or an apply's counts. */
export function jobText(job: RuleJobView): string {
  const lines = [
    `${job.type === "apply" ? "applied" : "dry run"}: ${job.status}${job.error ? ` (${job.error})` : ""}`,
    `looked at ${job.processed} of ${job.total}; ${job.type === "apply" ? "decided" : "would decide"} ${job.decided}, skipped ${job.skipped}`,
    ...Object.entries(job.skippedReasons).map(([reason, n]) => `  skipped ${n}: ${reason}`),
  ];
  const areas = Object.entries(job.areaChanges);
  if (areas.length) lines.push(`area change of approvals (≤ bound: count): ${areas.map(([k, n]) => `${k}: ${n}`).join(", ")}`);
  const o = job.notReplayableToOrigin;
  if (o) {
    lines.push(
      `not replayable to origin: ${o.total} of the approvals (${o.noBrokerSource} not pulled from a broker source, ` +
        `${o.refusedDestination} to a destination their source does not allow)`,
    );
  }
  if (job.samples.decided.length) lines.push(`sample decided: ${job.samples.decided.join(", ")}`);
  if (job.samples.skipped.length) lines.push(`sample skipped: ${job.samples.skipped.map((s) => s.id).join(", ")}`);
  return `${lines.join("\n")}\n`;
}

/** A command's answer: masked as the API's (output.ts), its text made from the masked value. */
const print = <T>(value: T, json: boolean | undefined, text: (masked: T) => string) => printAnswer(value, { json, text });

const runJob = (db: Db, id: string, job: RuleJobView) =>
  runRuleJob(db.pool, id, job.id, { now: () => new Date(), originCheck: notReplayableToOrigin });

export function registerRuleCommands(program: Command): void {
  const rule = program.command("rule").description("triage rules: records decided by a rule two supervisors approved, dry run first");

  rule
    .command("list")
    .description("every rule with its status, versions and decisions today / this week")
    .option("--as <email>", READ_AS_HELP)
    .option("--json", "print the rules as JSON")
    .action(async (o: { json?: boolean; as?: string }) => {
      await withCliDb(async (db) => {
        const { scope } = await readingAs(db, o.as);
        const rules = await listRules(db.pool, new Date(), scope, STANDING_REPLAY);
        print(rules, o.json, ruleTable);
        say(`${rules.length} ${plural(rules.length, "rule")}`);
      });
    });

  rule
    .command("show")
    .argument("<id>", "the rule's id (see rule list)")
    .description("one rule with every version, who drafted and who approved it")
    .option("--as <email>", READ_AS_HELP)
    .option("--json", "print the rule as JSON")
    .action(async (id: string, o: { json?: boolean; as?: string }) => {
      await withCliDb(async (db) => {
        const { scope } = await readingAs(db, o.as);
        const r = await getRule(db.pool, ruleId(id), new Date(), scope, STANDING_REPLAY);
        print(r, o.json, (m) => {
          const lines = [ruleTable([m]), standingText(m)];
          for (const v of m.versions ?? []) {
            const approved = v.approvedBy ? `approved by ${v.approvedBy.email ?? v.approvedBy.id} ${v.approvedAt}` : "not approved";
            lines.push(`v${v.version}  drafted by ${v.draftedBy.email ?? v.draftedBy.id} ${v.draftedAt}, ${approved}\n`);
          }
          return lines.join("");
        });
      });
    });

  rule
    .command("create")
    .description("draft a rule (version 1): it decides nothing until another supervisor approves it")
    .requiredOption("--name <name>", "lower-case name, e.g. bowtie-sliver")
    .requiredOption("--match <json>", `what it matches, e.g. '{"source":"parcels","repair":{"sameType":true,"maxAreaChange":0.01}}'`)
    .requiredOption("--action <type>", "approve | quarantine | leave")
    .option("--reason <text>", "the quarantine reason")
    .option(
      "--replay <json>",
      `a standing replay of what it approves, e.g. '{"sink":"ledger","ratePerSecond":5,"canary":{"count":20,"maxFailureRate":0.1}}'`,
    )
    .option("--as <email>", "the supervisor drafting it")
    .option("--json", "print the rule as JSON")
    .action(async (o: { name: string; match: string; action: string; reason?: string; replay?: string; as?: string; json?: boolean }) => {
      const json = (raw: string, flag: string): unknown => {
        try {
          return JSON.parse(raw);
        } catch {
          throw new CliUsageError(`${flag}: not JSON`);
        }
      };
      const match = json(o.match, "--match");
      const replay = o.replay === undefined ? undefined : json(o.replay, "--replay");
      const action = o.action === "quarantine" ? { type: o.action, reason: o.reason } : { type: o.action };
      const r = CreateRuleBodySchema.safeParse({ name: o.name, match, action, ...(replay === undefined ? {} : { replay }) });
      if (!r.success)
        throw optionsError(r.error.issues, {
          name: "--name",
          match: "--match",
          action: "--action",
          "action.reason": "--reason",
          replay: "--replay",
        });
      await withCliDb(async (db) => {
        const created = await createRule(db.pool, r.data, await actingAs(db, o.as));
        print(created, o.json, (m) => ruleTable([m]));
        say(`rule ${created.name} v1 is a draft: another supervisor approves it with redrive rule approve ${created.id} --version 1`);
      });
    });

  rule
    .command("dry-run")
    .argument("<id>", "the rule's id")
    .description("what the rule's latest version would do to the records stored now (decides nothing)")
    .option("--as <email>", "the supervisor running it")
    .option("--json", "print the job as JSON")
    .action(async (id: string, o: { as?: string; json?: boolean }) => {
      await withCliDb(async (db) => {
        const ctx = await actingAs(db, o.as);
        const r = await getRule(db.pool, ruleId(id), ctx.now, ctx.scope, ctx.standing);
        const job = await createRuleJob(
          db.pool,
          r.id,
          { type: "dry_run", match: r.match, action: r.action, version: r.version, toOrigin: sinkNeedsOrigin(r.replay?.sink.type) },
          ctx,
        );
        const done = await runJob(db, r.id, job);
        print(done, o.json, jobText);
      });
    });

  rule
    .command("approve")
    .argument("<id>", "the rule's id")
    .argument("<version>", "the version you reviewed (see rule show)")
    .description("approve exactly the version you reviewed (not one you drafted): the rule becomes active")
    .option("--as <email>", "the approving supervisor")
    .option("--json", "print the rule as JSON")
    .action(async (id: string, version: string, o: { as?: string; json?: boolean }) => {
      await withCliDb(async (db) => {
        const r = await approveRule(db.pool, ruleId(id), versionOf(version), await actingAs(db, o.as));
        print(r, o.json, (m) => ruleTable([m]));
      });
    });

  rule
    .command("disable")
    .argument("<id>", "the rule's id")
    .description("the kill switch: the rule stops deciding at once (enabling it again needs a second supervisor)")
    .option("--as <email>", "the supervisor or admin")
    .option("--json", "print the rule as JSON")
    .action(async (id: string, o: { as?: string; json?: boolean }) => {
      await withCliDb(async (db) => {
        const r = await patchRule(db.pool, ruleId(id), { enabled: false }, await actingAs(db, o.as));
        print(r, o.json, (m) => ruleTable([m]));
      });
    });

  rule
    .command("apply")
    .argument("<id>", "the rule's id")
    .argument("<version>", "the active version the dry run was made with")
    .description("the active version decides the matching records stored now (after a dry run); each decision audited")
    .option("--as <email>", "the supervisor starting it")
    .option("--json", "print the job as JSON")
    .action(async (id: string, version: string, o: { as?: string; json?: boolean }) => {
      await withCliDb(async (db) => {
        const rid = ruleId(id);
        const job = await createRuleJob(db.pool, rid, { type: "apply", version: versionOf(version) }, await actingAs(db, o.as));
        const done = await runJob(db, rid, job);
        print(done, o.json, jobText);
      });
    });

  rule
    .command("resume")
    .argument("<id>", "the rule's id")
    .description("resume the rule's standing replay its canary paused (the canary watches again from now)")
    .option("--as <email>", "the supervisor resuming it")
    .option("--json", "print the rule as JSON")
    .action(async (id: string, o: { as?: string; json?: boolean }) => {
      await withCliDb(async (db) => {
        const r = await resumeRule(db.pool, ruleId(id), await actingAs(db, o.as));
        print(r, o.json, (m) => ruleTable([m]) + standingText(m));
      });
    });
}
