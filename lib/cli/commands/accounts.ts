// `redrive user …`, `redrive token …`: accounts come from here (there is no sign-up).
// Results a script may capture (a token, a generated password) go to stdout alone;
// everything else goes to stderr, so `T=$(redrive token create --user x@y)` holds just the token.
import "server-only";
import type { Command } from "commander";
import { z } from "zod";
import type { Actor } from "../../audit/actor";
import type { AuditContext } from "../../auth/audit-context";
import { CreateTokenBody, EmailSchema, PasswordSchema, RoleSchema } from "../../auth/account-schemas";
import { createApiToken, revokeApiToken } from "../../auth/tokens";
import { createUser, findUserByEmail, listUsers, setPassword } from "../../auth/users";
import type { Db } from "../../db/client";
import { CliUsageError, connectCli, optionsError, osAccount } from "../context";
import { printLines } from "../output";

const UserAddOptions = z.object({
  email: EmailSchema,
  role: RoleSchema,
  name: z.string().trim().min(1).max(200).optional(),
  password: PasswordSchema.optional(),
  passwordStdin: z.boolean().optional(),
});
const SetPasswordOptions = z.object({ email: EmailSchema, password: PasswordSchema.optional(), passwordStdin: z.boolean().optional() });
const TokenCreateOptions = z.object({ user: EmailSchema, name: CreateTokenBody.shape.name.default("cli") });
const TokenId = z.string().trim().min(1, "a token id is required").max(100);

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw optionsError(r.error.issues);
}

/** The audit actor of a CLI command: the operating-system user who ran it. */
function cliActor(): Actor {
  return { id: null, email: `cli:${osAccount()}`, role: "system" };
}

const auditContext = (): AuditContext => ({ actor: cliActor(), now: new Date(), requestId: null });
const say = (msg: string) => process.stderr.write(`${msg}\n`);

/** The first line of stdin, for --password-stdin (a password on the command line shows up in `ps`). */
async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  const line = Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? "";
  const r = PasswordSchema.safeParse(line);
  if (!r.success) throw new CliUsageError(`--password-stdin: ${r.error.issues[0]?.message ?? "invalid password"}`);
  return r.data;
}

async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const { db, close } = await connectCli();
  try {
    return await fn(db);
  } finally {
    await close();
  }
}

export function registerAccountCommands(program: Command): void {
  const user = program.command("user").description("user accounts (there is no self sign-up)");

  user
    .command("add")
    .description("create a user; prints a generated password on stdout when none is given")
    .requiredOption("--email <email>", "e-mail address (the sign-in name)")
    .requiredOption("--role <role>", "analyst | supervisor | auditor | admin | producer")
    .option("--name <name>", "display name (default: the part of the e-mail before @)")
    .option("--password <password>", "initial password (12–128 characters); prefer --password-stdin")
    .option("--password-stdin", "read the initial password from the first line of stdin")
    .action(async (raw: Record<string, unknown>) => {
      const opts = parse(UserAddOptions, raw);
      if (opts.password && opts.passwordStdin) throw new CliUsageError("give --password or --password-stdin, not both");
      const password = opts.passwordStdin ? await readPasswordFromStdin() : opts.password;
      await withDb(async (db) => {
        const created = await createUser(db.pool, { email: opts.email, name: opts.name, role: opts.role, password }, auditContext());
        say(`created ${created.user.role} ${created.user.email} (id ${created.user.id})`);
        if (created.generated) {
          say("generated password (shown once):");
          process.stdout.write(`${created.password}\n`);
        }
      });
    });

  user
    .command("set-password")
    .description("set a user's password and sign them out everywhere; prints a generated one when none is given")
    .requiredOption("--email <email>", "the user's e-mail address")
    .option("--password <password>", "the new password (12–128 characters); prefer --password-stdin")
    .option("--password-stdin", "read the new password from the first line of stdin")
    .action(async (raw: Record<string, unknown>) => {
      const opts = parse(SetPasswordOptions, raw);
      if (opts.password && opts.passwordStdin) throw new CliUsageError("give --password or --password-stdin, not both");
      const password = opts.passwordStdin ? await readPasswordFromStdin() : opts.password;
      await withDb(async (db) => {
        const found = await findUserByEmail(db.pool, opts.email);
        if (!found) throw new CliUsageError(`no user with e-mail ${opts.email}`);
        const result = await setPassword(db.pool, found.id, password, auditContext());
        say(`password of ${found.email} set; their sessions were ended`);
        if (result.generated) {
          say("generated password (shown once):");
          process.stdout.write(`${result.password}\n`);
        }
      });
    });

  user
    .command("list")
    .description("list users")
    .action(async () => {
      await withDb(async (db) => {
        const users = await listUsers(db.pool);
        printLines(users, (u) =>
          [u.email.padEnd(36), u.role.padEnd(10), (u.disabled ? "disabled" : "enabled").padEnd(9), u.demo ? "demo" : "", u.id].join(" "),
        );
        say(`${users.length} user${users.length === 1 ? "" : "s"}`);
      });
    });

  const token = program.command("token").description("API tokens (Authorization: Bearer rdv_…)");

  token
    .command("create")
    .description("create an API token for a user; prints only the token on stdout (it is shown once)")
    .requiredOption("--user <email>", "the user the token acts as")
    .option("--name <name>", "what the token is for", "cli")
    .action(async (raw: Record<string, unknown>) => {
      const opts = parse(TokenCreateOptions, raw);
      await withDb(async (db) => {
        const owner = await findUserByEmail(db.pool, opts.user);
        if (!owner) throw new CliUsageError(`no user with e-mail ${opts.user}`);
        const created = await createApiToken(db.pool, { userId: owner.id, name: opts.name }, auditContext());
        say(`created token ${created.id} (${created.prefix}…) "${created.name}" for ${owner.email} (${owner.role})`);
        process.stdout.write(`${created.token}\n`);
      });
    });

  token
    .command("revoke")
    .argument("<id>", "the token's id (see the settings page or the token.created audit event)")
    .description("revoke an API token")
    .action(async (rawId: string) => {
      const id = parse(TokenId, rawId);
      await withDb(async (db) => {
        const revoked = await revokeApiToken(db.pool, { id, ownerId: null }, auditContext());
        say(`token ${revoked.id} (${revoked.prefix}…) revoked at ${revoked.revokedAt}`);
      });
    });
}
