// `redrive group list|show|acknowledge|resolve|ignore|reopen|assign|note`: failure groups for operators, as
// /groups and PATCH /api/groups/{id} offer them. Changes act as a named user (--as <email>, who must be allowed
// to triage), recorded as the audit actor and bounded by their teams; reads are company-wide unless --as names a
// user (read-as.ts). Output masks card data as the API does for a reader without clear access (output.ts).
import { plural } from "../../vocabulary/plural";
import type { RecordScope } from "../../scope/record-scope";
import { readRecordScope } from "../../auth/teams/read-scope";
import "server-only";
import type { Command } from "commander";
import { can, isRole } from "../../auth/permissions";
import { findUserByEmail } from "../../auth/users";
import type { Actor } from "../../audit/actor";
import type { Db } from "../../db/client";
import {
  GroupIdSchema,
  GroupListQuerySchema,
  GroupPatchSchema,
  type FailureGroupView,
  type GroupPatch,
} from "../../dead-letters/contract/groups";
import { getGroup, listGroups } from "../../dead-letters/groups/read-groups";
import { updateGroup } from "../../dead-letters/groups/update-group";
import { CliUsageError, optionsError, osAccount, withCliDb } from "../context";
import { READ_AS_HELP, readingAs } from "../read-as";
import { printAnswer } from "../output";

const say = (msg: string) => process.stderr.write(`${msg}\n`);

async function actingAs(db: Db, email: string | undefined): Promise<{ actor: Actor; scope: RecordScope }> {
  if (!email) throw new CliUsageError("--as <email> is required: the analyst or supervisor on whose behalf this is done (and audited)");
  const user = await findUserByEmail(db.pool, email);
  if (!user) throw new CliUsageError(`--as: no user with e-mail ${email}`);
  if (user.disabled) throw new CliUsageError(`--as: ${email} is disabled`);
  if (!isRole(user.role) || !can(user.role, "dead_letters:triage"))
    throw new Error(`--as: ${email} (${user.role}) lacks permission dead_letters:triage`);
  return { actor: { id: user.id, email: user.email, role: user.role }, scope: await readRecordScope(db.pool, user.id) };
}

function groupId(raw: string): string {
  const r = GroupIdSchema.safeParse(raw);
  if (!r.success) throw new CliUsageError(`<id>: ${r.error.issues[0]?.message ?? "invalid"}`);
  return r.data;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Pure: groups as an aligned text table, one line each. */
export function groupTable(groups: FailureGroupView[]): string {
  const rows = [
    ["ID", "STATUS", "RECORDS", "UNRESOLVED", "LAST SEEN", "OWNER", "SOURCE", "REASON"],
    ...groups.map((g) => [
      g.id,
      g.regression ? `${g.status} (regression)` : g.status,
      String(g.count),
      String(g.unresolved),
      g.lastSeenAt?.slice(0, 16).replace("T", " ") ?? "-",
      g.owner?.email ?? "-",
      cut(g.source, 24),
      cut(g.reasonGroup, 60),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n") + "\n";
}

/** Parses a change as the API would, naming the flag of a bad value. */
function change(raw: Record<string, unknown>): GroupPatch {
  const r = GroupPatchSchema.safeParse(JSON.parse(JSON.stringify(raw)));
  if (r.success) return r.data;
  throw optionsError(r.error.issues, { "resolution.reason": "--reason", "resolution.link": "--link", owner: "<email>" });
}

async function applyChange(
  id: string,
  o: { as?: string; json?: boolean },
  build: (db: Db) => Promise<Record<string, unknown>>,
): Promise<void> {
  const gid = groupId(id);
  await withCliDb(async (db) => {
    const { actor, scope } = await actingAs(db, o.as);
    const patch = change(await build(db));
    const group = await updateGroup(db.pool, gid, patch, {
      actor,
      scope,
      requestId: `cli:${osAccount()}@group`,
      now: new Date(),
    });
    printAnswer(group, { json: o.json, text: (g) => groupTable([g]) });
  });
}

export function registerGroupCommands(program: Command): void {
  const group = program
    .command("group")
    .description("failure groups (source + reason group) tracked as issues: list, resolve, ignore, assign");

  group
    .command("list")
    .description("failure groups with status, owner, record counts and latest arrival")
    .option("--sort <sort>", "new (latest arrival first) | size | age (seen first, first)", "new")
    .option("--status <statuses>", "open,acknowledged,resolved,ignored")
    .option("--source <name>", "only this source")
    .option("--limit <n>", "at most this many groups", "200")
    .option("--as <email>", READ_AS_HELP)
    .option("--json", "print the groups as JSON")
    .action(async (o: Record<string, string | boolean | undefined>) => {
      const r = GroupListQuerySchema.safeParse(
        JSON.parse(JSON.stringify({ sort: o.sort, status: o.status, source: o.source, limit: o.limit })),
      );
      if (!r.success) throw optionsError(r.error.issues);
      await withCliDb(async (db) => {
        const { scope } = await readingAs(db, typeof o.as === "string" ? o.as : undefined);
        const groups = await listGroups(db.pool, scope, r.data, new Date());
        printAnswer(groups, { json: o.json === true, text: groupTable });
        say(`${groups.length} ${plural(groups.length, "group")}`);
      });
    });

  group
    .command("show")
    .argument("<id>", "the group's id (see group list)")
    .description("one group with its resolution and notes")
    .option("--as <email>", READ_AS_HELP)
    .option("--json", "print the group as JSON")
    .action(async (id: string, o: { as?: string; json?: boolean }) => {
      const gid = groupId(id);
      await withCliDb(async (db) => {
        const { scope } = await readingAs(db, o.as);
        printAnswer(await getGroup(db.pool, scope, gid, new Date()), {
          json: o.json,
          text: (g) => {
            const lines = [groupTable([g])];
            if (g.resolution) lines.push(`resolution: ${g.resolution.reason}${g.resolution.link ? ` (${g.resolution.link})` : ""}\n`);
            for (const n of g.notes) lines.push(`${n.at.slice(0, 16).replace("T", " ")}  ${n.authorEmail}: ${n.body}\n`);
            return lines.join("");
          },
        });
      });
    });

  for (const [name, status, what] of [
    ["acknowledge", "acknowledged", "say someone is on it"],
    ["reopen", "open", "open the group again"],
    ["ignore", "ignored", "expected failures: quiet in the overview and alerts, records kept"],
  ] as const) {
    group
      .command(name)
      .argument("<id>", "the group's id")
      .description(what)
      .option("--note <text>", "a note for the group's thread")
      .option("--as <email>", "the user this is done (and audited) as")
      .option("--json", "print the group as JSON")
      .action((id: string, o: { note?: string; as?: string; json?: boolean }) =>
        applyChange(id, o, async () => ({ status, note: o.note })),
      );
  }

  group
    .command("resolve")
    .argument("<id>", "the group's id")
    .description("resolved, saying why: new arrivals reopen it as a regression")
    .requiredOption("--reason <text>", 'why ("fixed upstream in release 4.2")')
    .option("--link <url>", "a ticket, pull request or release note")
    .option("--note <text>", "a note for the group's thread")
    .option("--as <email>", "the user this is done (and audited) as")
    .option("--json", "print the group as JSON")
    .action((id: string, o: { reason: string; link?: string; note?: string; as?: string; json?: boolean }) =>
      applyChange(id, o, async () => ({ status: "resolved", resolution: { reason: o.reason, link: o.link }, note: o.note })),
    );

  group
    .command("assign")
    .argument("<id>", "the group's id")
    .argument("[email]", "the new owner (an analyst or supervisor); leave out with --none")
    .description("set or clear the group's owner")
    .option("--none", "clear the owner")
    .option("--as <email>", "the user this is done (and audited) as")
    .option("--json", "print the group as JSON")
    .action((id: string, email: string | undefined, o: { none?: boolean; as?: string; json?: boolean }) =>
      applyChange(id, o, async (db) => {
        if (o.none) return { owner: null };
        if (!email) throw new CliUsageError("<email>: name the new owner, or pass --none to clear it");
        const user = await findUserByEmail(db.pool, email);
        if (!user) throw new CliUsageError(`<email>: no user with e-mail ${email}`);
        return { owner: user.id };
      }),
    );

  group
    .command("note")
    .argument("<id>", "the group's id")
    .argument("<text>", "the note")
    .description("add a note to the group's thread")
    .option("--as <email>", "the user this is done (and audited) as")
    .option("--json", "print the group as JSON")
    .action((id: string, text: string, o: { as?: string; json?: boolean }) => applyChange(id, o, async () => ({ note: text })));
}
