import { z } from "zod";
import { IdParamsSchema } from "../dead-letters/contract/record-id";
import { MentionListSchema, NoteBodySchema, NoteListSchema, NoteSchema } from "../dead-letters/notes/note-schemas";
import {
  CreateViewBodySchema,
  DefaultViewBodySchema,
  ListViewsQuerySchema,
  PatchViewBodySchema,
  SavedViewListSchema,
  SavedViewSchema,
  ViewIdParamsSchema,
} from "../dead-letters/views/view-schemas";
import { UnmaskQuerySchema } from "../forensics/forensics-schemas";
import type { Operation } from "./openapi";

// Notes on a record and saved views of the list (openapi-routes.ts lists these with the rest).

const notFound = { 404: { description: "No such record or view (someone else's personal view is not found either)" } };

export const NOTES_AND_VIEWS: Operation[] = [
  {
    method: "get",
    path: "/api/dead-letters/{id}/notes",
    tag: "notes",
    summary: "A record's notes, oldest first",
    description: "Card numbers typed into a note are masked like free text; unmask=1 (auditors) is audited.",
    access: { permission: "dead_letters:read" },
    params: IdParamsSchema,
    query: UnmaskQuerySchema,
    responses: { 200: { description: "The notes", schema: NoteListSchema }, ...notFound },
  },
  {
    method: "post",
    path: "/api/dead-letters/{id}/notes",
    tag: "notes",
    summary: "Add a note (plain text, ≤ 2,000 characters; @handle mentions a user)",
    description: "Audited as dead_letter.note_added (its text masked) and shown in the record's timeline.",
    access: { permission: "notes:write" },
    params: IdParamsSchema,
    body: NoteBodySchema,
    responses: { 201: { description: "The note", schema: NoteSchema }, ...notFound },
  },
  {
    method: "get",
    path: "/api/notes/mentions",
    tag: "notes",
    summary: "Notes that mention you: how many, and the newest 20",
    access: { permission: "dead_letters:read" },
    responses: { 200: { description: "Mentions", schema: MentionListSchema } },
  },
  {
    method: "get",
    path: "/api/views",
    tag: "saved views",
    summary: "Your saved views and the shared ones (counts=1: each with its live count)",
    access: { permission: "dead_letters:read" },
    query: ListViewsQuerySchema,
    responses: { 200: { description: "The views", schema: SavedViewListSchema } },
  },
  {
    method: "post",
    path: "/api/views",
    tag: "saved views",
    summary: "Save the list's filter as a named view, personal or shared (audited)",
    access: { permission: "dead_letters:read" },
    body: CreateViewBodySchema,
    responses: { 201: { description: "The view", schema: SavedViewSchema }, 409: { description: "You already have a view of that name" } },
  },
  {
    method: "patch",
    path: "/api/views/{id}",
    tag: "saved views",
    summary: "Rename, share or unshare, or change a view (its owner; an admin for a shared view; audited)",
    access: { permission: "dead_letters:read" },
    params: ViewIdParamsSchema,
    body: PatchViewBodySchema,
    responses: { 200: { description: "The view", schema: SavedViewSchema }, 403: { description: "Not yours to change" }, ...notFound },
  },
  {
    method: "delete",
    path: "/api/views/{id}",
    tag: "saved views",
    summary: "Delete a view (its owner; an admin for a shared view; audited)",
    access: { permission: "dead_letters:read" },
    params: ViewIdParamsSchema,
    responses: {
      200: { description: "Deleted", schema: z.object({ deleted: z.string() }) },
      403: { description: "Not yours to delete" },
      ...notFound,
    },
  },
  {
    method: "put",
    path: "/api/views/default",
    tag: "saved views",
    summary: "Your default view: /dead-letters without a filter opens it (null: none; audited)",
    access: { permission: "dead_letters:read" },
    body: DefaultViewBodySchema,
    responses: { 200: { description: "Set", schema: z.object({ viewId: z.string().nullable() }) }, ...notFound },
  },
];
