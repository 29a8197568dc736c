import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { IdParamsSchema } from "@/lib/dead-letters/contract/record-id";
import { NoteBodySchema, NoteListSchema, NoteSchema } from "@/lib/dead-letters/contract/notes";
import { addNote, listNotes } from "@/lib/dead-letters/notes/notes";
import { maskFor } from "@/lib/forensics/access";
import { UnmaskQuerySchema } from "@/lib/forensics/forensics-schemas";
import { auditUnmaskedRead } from "@/lib/forensics/reveal";
import { configuredMaskRules } from "@/lib/masking/config";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters/{id}/notes[?unmask=1] — the record's notes, oldest first; masked unless an auditor asks (audited). */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    params: IdParamsSchema,
    query: UnmaskQuerySchema,
    openapi: {
      tag: "notes",
      summary: "A record's notes, oldest first",
      description: "Card numbers typed into a note are masked like free text; unmask=1 (auditors) is audited.",
      responses: {
        200: { description: "The notes", schema: NoteListSchema },
        404: { description: "No such record or view (someone else's personal view is not found either)" },
      },
    },
  },
  async ({ params, query, principal, requestId, now }) => {
    const mask = maskFor(principal, query.unmask);
    const items = await listNotes(getDb().pool, principal!.scope, params.id);
    if (!mask) await auditUnmaskedRead(getDb().pool, params.id, "notes", { actor: actorOf(principal!), requestId, now });
    return { items };
  },
);

/** POST /api/dead-letters/{id}/notes {text} — adds a note (plain text, ≤ 2,000 characters), audited as dead_letter.note_added. */
export const POST = defineRoute(
  {
    access: { permission: "notes:write" },
    params: IdParamsSchema,
    body: NoteBodySchema,
    maxBodyBytes: 64 * 1024,
    openapi: {
      tag: "notes",
      summary: "Add a note (plain text, ≤ 2,000 characters; @handle mentions a user)",
      description: "Audited as dead_letter.note_added (its text masked) and shown in the record's timeline.",
      responses: {
        201: { description: "The note", schema: NoteSchema },
        404: { description: "No such record or view (someone else's personal view is not found either)" },
      },
    },
  },
  async ({ params, body, principal, requestId, now }) => {
    const note = await addNote(getDb().pool, principal!.scope, params.id, body.text, {
      actor: { id: principal!.userId, email: principal!.email, role: principal!.role },
      requestId,
      now,
      rules: configuredMaskRules(),
    });
    return answer(note, { status: 201 });
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
