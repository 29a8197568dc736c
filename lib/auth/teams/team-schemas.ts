import { z } from "zod";

// A team's body at the API and the CLI: its name, its members by user id, and which records it holds — a record
// source by name or by a prefix ending in `*` (the list's source index serves it as a range), and/or a broker
// source by name (the list's `origin` filter).

/** `name` or `prefix*`: one `*`, at the end only. */
const SourcePattern = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((v) => !v.slice(0, -1).includes("*"), "a `*` may only end the name (a prefix)");

export const TeamSourceSchema = z
  .strictObject({
    source: SourcePattern.optional(),
    origin: z.string().trim().min(1).max(64).optional(),
  })
  .refine((v) => v.source !== undefined || v.origin !== undefined, "name a source (or prefix*) and/or an origin");
export type TeamSource = z.infer<typeof TeamSourceSchema>;

export const TeamMemberSchema = z.strictObject({ userId: z.string().min(1).max(100) });

export const TeamBodySchema = z.strictObject({
  name: z.string().trim().min(1, "is required").max(100),
  members: z.array(TeamMemberSchema).max(1000).default([]),
  sources: z.array(TeamSourceSchema).max(1000).default([]),
});
export type TeamBody = z.infer<typeof TeamBodySchema>;

export const TeamPatchSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    members: z.array(TeamMemberSchema).max(1000).optional(),
    sources: z.array(TeamSourceSchema).max(1000).optional(),
  })
  .refine((v) => Object.keys(v).length > 0, "change at least one of name, members, sources");
export type TeamPatch = z.infer<typeof TeamPatchSchema>;

export const TeamIdParams = z.object({ id: z.string().regex(/^\d{1,18}$/, "must be a team id") });

export const TeamViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  members: z.array(z.object({ userId: z.string(), email: z.string().nullable() })),
  sources: z.array(z.object({ source: z.string().nullable(), origin: z.string().nullable() })),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TeamView = z.infer<typeof TeamViewSchema>;
