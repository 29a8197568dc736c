// `redrive team …`: teams scope which records their members see and change (lib/scope/record-scope.ts). Every
// change goes through the same audited functions as /api/teams, in the name of the operating-system user.
import "server-only";
import type { Command } from "commander";
import { z } from "zod";
import { findUserByEmail } from "../../auth/users";
import { TeamBodySchema, TeamSourceSchema, type TeamView } from "../../auth/teams/team-schemas";
import { createTeam, findTeamByName, getTeam, listTeams, updateTeam, type TeamChangeContext } from "../../auth/teams/teams";
import type { Db } from "../../db/client";
import { CliUsageError, optionsError, osAccount, withCliDb } from "../context";
import { printAnswer, printLines } from "../output";

const collect = (v: string, prev: string[] = []) => [...prev, v];
const say = (msg: string) => process.stderr.write(`${msg}\n`);

const context = (): TeamChangeContext => ({
  actor: { id: null, email: `cli:${osAccount()}`, role: "system" },
  requestId: null,
  now: new Date(),
});

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw optionsError(r.error.issues);
}

/** A team by name, or by id when the argument is a number and no team has that name. */
async function teamNamed(db: Db, ref: string): Promise<TeamView> {
  const byName = await findTeamByName(db.pool, ref);
  if (byName) return byName;
  if (/^\d+$/.test(ref)) return getTeam(db.pool, ref);
  throw new CliUsageError(`no team named ${ref}`);
}

async function userIdOf(db: Db, email: string): Promise<string> {
  const user = await findUserByEmail(db.pool, email);
  if (!user) throw new CliUsageError(`--user: no user with e-mail ${email}`);
  return user.id;
}

function print(team: TeamView | TeamView[], json: boolean | undefined): void {
  if (json) return printAnswer(team, { json });
  printLines(Array.isArray(team) ? team : [team], (t) => {
    const claims = t.sources.map((s) => [s.source && `source ${s.source}`, s.origin && `origin ${s.origin}`].filter(Boolean).join(" + "));
    return `${t.id}\t${t.name}\t${t.members.map((m) => m.email ?? m.userId).join(", ") || "(no members)"}\t${claims.join(", ") || "(no records)"}`;
  });
}

/** Each --source and each --origin is a claim of its own (a record matching either belongs to the team). */
function claimsOf(o: { source?: string[]; origin?: string[] }) {
  return [
    ...(o.source ?? []).map((source) => parse(TeamSourceSchema, { source })),
    ...(o.origin ?? []).map((origin) => parse(TeamSourceSchema, { origin })),
  ];
}

const sameClaim = (a: { source?: string | null; origin?: string | null }, b: { source?: string | null; origin?: string | null }) =>
  (a.source ?? null) === (b.source ?? null) && (a.origin ?? null) === (b.origin ?? null);

export function registerTeamCommands(program: Command): void {
  const team = program.command("team").description("teams: which records their members see and change (a user in no team sees all)");

  team
    .command("list")
    .description("every team, its members and its records")
    .option("--json", "print JSON")
    .action(async (o: { json?: boolean }) => withCliDb(async (db) => print(await listTeams(db.pool), o.json)));

  team
    .command("create")
    .description("create a team")
    .requiredOption("--name <name>", "the team's name")
    .option("--source <name>", "a record source, or a prefix ending in * (repeatable)", collect)
    .option("--origin <name>", "a broker source's name (repeatable)", collect)
    .option("--user <email>", "a member (repeatable)", collect)
    .option("--json", "print JSON")
    .action(async (o: { name: string; source?: string[]; origin?: string[]; user?: string[]; json?: boolean }) =>
      withCliDb(async (db) => {
        const members = await Promise.all((o.user ?? []).map(async (email) => ({ userId: await userIdOf(db, email) })));
        const body = parse(TeamBodySchema, { name: o.name, members, sources: claimsOf(o) });
        const created = await createTeam(db.pool, body, context());
        say(`created team ${created.name} (id ${created.id})`);
        print(created, o.json);
      }),
    );

  const change = (
    name: string,
    description: string,
    apply: (t: TeamView, o: { user?: string[]; source?: string[]; origin?: string[] }, db: Db) => Promise<Parameters<typeof updateTeam>[2]>,
  ) =>
    team
      .command(`${name} <team>`)
      .description(description)
      .option("--user <email>", "a user (repeatable)", collect)
      .option("--source <name>", "a record source, or a prefix ending in * (repeatable)", collect)
      .option("--origin <name>", "a broker source's name (repeatable)", collect)
      .option("--json", "print JSON")
      .action(async (ref: string, o: { user?: string[]; source?: string[]; origin?: string[]; json?: boolean }) =>
        withCliDb(async (db) => {
          const t = await teamNamed(db, ref);
          const updated = await updateTeam(db.pool, t.id, await apply(t, o, db), context());
          say(`team ${updated.name}: ${updated.members.length} member(s), ${updated.sources.length} source claim(s)`);
          print(updated, o.json);
        }),
      );

  const needUsers = (o: { user?: string[] }) => {
    if (!o.user?.length) throw new CliUsageError("--user <email> is required");
    return o.user;
  };
  const needClaims = (o: { source?: string[]; origin?: string[] }) => {
    const claims = claimsOf(o);
    if (!claims.length) throw new CliUsageError("--source <name|prefix*> or --origin <name> is required");
    return claims;
  };

  change("add-user", "add members", async (t, o, db) => {
    const ids = await Promise.all(needUsers(o).map((e) => userIdOf(db, e)));
    return { members: [...t.members.map((m) => ({ userId: m.userId })), ...ids.map((userId) => ({ userId }))] };
  });
  change("remove-user", "remove members", async (t, o, db) => {
    const ids = new Set(await Promise.all(needUsers(o).map((e) => userIdOf(db, e))));
    return { members: t.members.filter((m) => !ids.has(m.userId)).map((m) => ({ userId: m.userId })) };
  });
  change("add-source", "add the records of a source (name or prefix*) and/or a broker source", async (t, o) => ({
    sources: [...t.sources.map(asClaim), ...needClaims(o).filter((c) => !t.sources.some((s) => sameClaim(s, c)))],
  }));
  change("remove-source", "remove a source claim", async (t, o) => {
    const gone = needClaims(o);
    const kept = t.sources.filter((s) => !gone.some((c) => sameClaim(s, c)));
    if (kept.length === t.sources.length) throw new CliUsageError(`team ${t.name} has no such source claim`);
    return { sources: kept.map(asClaim) };
  });
}

function asClaim(s: { source: string | null; origin: string | null }) {
  return { ...(s.source ? { source: s.source } : {}), ...(s.origin ? { origin: s.origin } : {}) };
}
