import "server-only";
import { paramsOf, scopeSql, type RecordScope } from "../../scope/record-scope";
import type pg from "pg";
import { appendAudit } from "../../audit/append";
import { can, ROLES } from "../../auth/permissions";
import { actorFields, type AuditContext } from "../../auth/audit-context";
import { inTransaction } from "../../db/transaction";
import { AppError } from "../../errors/app-error";
import { maskFreeText, withoutCardNumbers } from "../../masking/mask";
import type { MaskRules } from "../../masking/rules";
import { handlesOf, mentionHandles } from "./mentions";
import type { MentionList, MentionedUser, Note } from "../contract/notes";

// Notes on a record: read (the record's thread, a reader's mentions) and written (one note, audited in the same
// transaction). The text is stored as typed; every read path masks it like free text (the answer pass), and the
// audit event keeps it masked, so a card number typed into a note is not copied in clear into the chain. The list's
// note filter searches search_text, the note without its card numbers, so it finds only what readers are shown.

type Db = pg.Pool | pg.PoolClient;

interface NoteRow {
  id: string;
  dead_letter_id: string;
  author_id: string;
  author_email: string;
  author_name: string | null;
  text: string;
  created_at: Date;
  mentioned: { id: string; email: string; name: string }[];
}

/**
 * The roles that read records (dead_letters:read): the only ones a mention resolves to, and the only mentioned
 * users a note's answer names. Anyone else (a producer's account) could not open the record, and listing them
 * would hand every reader the e-mails of accounts of other roles.
 */
const READER_ROLES = ROLES.filter((r) => can(r, "dead_letters:read"));
const READER_ROLES_SQL = READER_ROLES.map((r) => `'${r}'`).join(", ");

const NOTE_COLUMNS = `n.id::text AS id, n.dead_letter_id::text AS dead_letter_id, n.author_id, n.author_email, a.name AS author_name,
  n.text, n.created_at,
  COALESCE((SELECT json_agg(json_build_object('id', u.id, 'email', u.email, 'name', u.name) ORDER BY u.email)
            FROM "user" u WHERE u.id = ANY (n.mentions) AND u.role::text IN (${READER_ROLES_SQL})), '[]') AS mentioned`;
const NOTE_FROM = `dead_letter_note n LEFT JOIN "user" a ON a.id = n.author_id`;

function toNote(r: NoteRow): Note {
  return {
    id: r.id,
    deadLetterId: r.dead_letter_id,
    author: { id: r.author_id, email: r.author_email, name: r.author_name },
    createdAt: r.created_at.toISOString(),
    text: r.text,
    mentions: r.mentioned.map((u) => ({ ...u, handle: handlesOf(u)[0]! })),
  };
}

async function requireRecord(db: Db, scope: RecordScope, id: string, lock = ""): Promise<void> {
  const values: unknown[] = [id];
  const { rowCount } = await db.query(
    `SELECT 1 FROM dead_letter d WHERE d.id = $1 AND ${scopeSql(scope, paramsOf(values))} ${lock}`,
    values,
  );
  if (!rowCount)
    throw new AppError("not_found", `dead letter ${id} does not exist`, { issues: [{ path: "id", message: "no such dead letter" }] });
}

/** A record's notes, oldest first (a thread reads downwards). */
export async function listNotes(db: Db, scope: RecordScope, deadLetterId: string): Promise<Note[]> {
  await requireRecord(db, scope, deadLetterId);
  const { rows } = await db.query<NoteRow>(
    `SELECT ${NOTE_COLUMNS} FROM ${NOTE_FROM} WHERE n.dead_letter_id = $1 ORDER BY n.created_at, n.id`,
    [deadLetterId],
  );
  return rows.map(toNote);
}

/**
 * Active users who can read records whose handles the note names (an e-mail's local part or a display name
 * without spaces, any case). Record notes and group notes both resolve through here.
 */
export async function resolveMentions(db: Db, text: string): Promise<MentionedUser[]> {
  const handles = mentionHandles(text);
  if (handles.length === 0) return [];
  const { rows } = await db.query<{ id: string; email: string; name: string }>(
    `SELECT id, email, name FROM "user"
     WHERE NOT disabled AND role::text = ANY ($2)
       AND (lower(split_part(email, '@', 1)) = ANY ($1) OR lower(regexp_replace(name, '\\s+', '', 'g')) = ANY ($1))
     ORDER BY email`,
    [handles, READER_ROLES],
  );
  return rows.map((u) => ({ ...u, handle: handlesOf(u).find((h) => handles.includes(h)) ?? handlesOf(u)[0]! }));
}

/** Adds a note (text already checked by NoteBodySchema) and its audit event, `dead_letter.note_added`. */
export async function addNote(
  pool: pg.Pool,
  scope: RecordScope,
  deadLetterId: string,
  text: string,
  ctx: AuditContext & { actor: { id: string; email: string }; rules: MaskRules },
): Promise<Note> {
  return inTransaction(pool, async (client) => {
    // FOR KEY SHARE: a purge running now either waits for the note or the note sees the record gone.
    await requireRecord(client, scope, deadLetterId, "FOR KEY SHARE");
    const mentions = await resolveMentions(client, text);
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO dead_letter_note (dead_letter_id, author_id, author_email, text, search_text, mentions, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id::text AS id`,
      [deadLetterId, ctx.actor.id, ctx.actor.email, text, withoutCardNumbers(text), mentions.map((m) => m.id), ctx.now],
    );
    const noteId = rows[0]!.id;
    await appendAudit(
      client,
      [
        {
          ...actorFields(ctx),
          action: "dead_letter.note_added",
          targetType: "dead_letter",
          targetId: deadLetterId,
          after: { noteId, text: maskFreeText(text, ctx.rules), mentions: mentions.map((m) => m.email) },
        },
      ],
      ctx.now,
    );
    const added = await client.query<NoteRow>(`SELECT ${NOTE_COLUMNS} FROM ${NOTE_FROM} WHERE n.id = $1`, [noteId]);
    return toNote(added.rows[0]!);
  });
}

/** The notes on records that mention a user: how many, and the newest `limit`. */
export async function mentionsOf(db: Db, scope: RecordScope, userId: string, limit = 20): Promise<MentionList> {
  // A mention on a record outside the reader's teams is not theirs to see (the record answers 404 to them).
  const visible = (values: unknown[]) =>
    scope.all ? "TRUE" : `EXISTS (SELECT 1 FROM dead_letter d WHERE d.id = n.dead_letter_id AND ${scopeSql(scope, paramsOf(values))})`;
  const countValues: unknown[] = [userId];
  const pageValues: unknown[] = [userId, limit];
  const [count, rows] = await Promise.all([
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM dead_letter_note n WHERE n.mentions @> ARRAY[$1]::text[] AND ${visible(countValues)}`,
      countValues,
    ),
    db.query<NoteRow>(
      `SELECT ${NOTE_COLUMNS} FROM ${NOTE_FROM} WHERE n.mentions @> ARRAY[$1]::text[] AND ${visible(pageValues)}
       ORDER BY n.created_at DESC, n.id DESC LIMIT $2`,
      pageValues,
    ),
  ]);
  return { count: count.rows[0]?.n ?? 0, items: rows.rows.map((r) => ({ ...toNote(r), group: null })) };
}
