import { z } from "zod";

// A note on a record: a short plain-text thread entry. Client-safe; the API's body and answer shapes.

export const NOTE_MAX_CHARS = 2_000;

export const NoteBodySchema = z
  .object({
    text: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(NOTE_MAX_CHARS, `at most ${NOTE_MAX_CHARS.toLocaleString("en")} characters`),
  })
  .strict();
export type NoteBody = z.infer<typeof NoteBodySchema>;

export const MentionedUserSchema = z.object({ id: z.string(), email: z.string(), name: z.string(), handle: z.string() });
export type MentionedUser = z.infer<typeof MentionedUserSchema>;

export const NoteSchema = z
  .object({
    id: z.string(),
    deadLetterId: z.string(),
    author: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
    createdAt: z.string(),
    /** plain text, shown as text (never rendered as HTML or markdown) */
    text: z.string(),
    /** the users its @handles named when it was written */
    mentions: z.array(MentionedUserSchema),
  })
  .meta({ id: "DeadLetterNote" });
export type Note = z.infer<typeof NoteSchema>;

export const NoteListSchema = z.object({ items: z.array(NoteSchema) }).meta({ id: "DeadLetterNoteList" });

/** A note that mentions the reader: on a record (`deadLetterId`) or on a failure group (`group`). */
export const MentionSchema = NoteSchema.extend({
  /** the record the note is on; null for a failure group's note */
  deadLetterId: z.string().nullable(),
  /** the failure group the note is on; null for a record's note */
  group: z.object({ id: z.string(), source: z.string(), reasonGroup: z.string() }).nullable(),
}).meta({ id: "NoteMention" });
export type Mention = z.infer<typeof MentionSchema>;

export const MentionListSchema = z
  .object({
    /** notes mentioning the reader, all time, on records and on failure groups */
    count: z.number().int(),
    /** the newest of them */
    items: z.array(MentionSchema),
  })
  .meta({ id: "NoteMentions" });
export type MentionList = z.infer<typeof MentionListSchema>;
