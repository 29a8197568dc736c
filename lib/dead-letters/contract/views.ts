import { z } from "zod";
import { bigintIdSchema } from "../../db/column-limits";
import { filterFromParams, filterKey } from "../filter-url";
import { ListColumnsSchema } from "../list-columns";

// Saved views of the list: a named filter (the list's own query string, filter-url.ts) with its sort and
// columns (list-columns.ts), personal or shared with the team. Client-safe: the API's shapes and the canonical form of a view's filter.

/**
 * A list query string in canonical form (stable key order, only filter keys), or an issue naming what is wrong:
 * a view keeps what the list would apply, so opening it shows what was saved.
 */
export function canonicalViewFilter(query: string): { filter: string } | { error: string } {
  const { filter, error } = filterFromParams(new URLSearchParams(query.replace(/^\?/, "")));
  return error ? { error } : { filter: filterKey(filter) };
}

/**
 * The list URL's query string that opens a view: its filter, and its columns as `cols=` when it has its own
 * (without, the list shows the columns this browser remembers).
 */
export function viewQuery(view: { filter: string; columns: readonly string[] }): string {
  if (view.columns.length === 0) return view.filter;
  const cols = `cols=${view.columns.map(encodeURIComponent).join(",")}`;
  return view.filter ? `${view.filter}&${cols}` : cols;
}

const FilterTextSchema = z
  .string()
  .max(4_000)
  .transform((q, ctx) => {
    const c = canonicalViewFilter(q);
    if ("error" in c) {
      ctx.issues.push({ code: "custom", message: `not a list filter (${c.error})`, input: q });
      return z.NEVER;
    }
    return c.filter;
  })
  .describe("the list's query string, e.g. status=pending&kind=afc (filters only; canonicalized)");

const NameSchema = z.string().trim().min(1, "must not be empty").max(80, "at most 80 characters");
export const VIEW_SORTS = ["desc", "asc"] as const;
const SortSchema = z.enum(VIEW_SORTS).describe("by observation time: desc (newest first, the list's order) or asc");
const ColumnsSchema = ListColumnsSchema;

export const CreateViewBodySchema = z
  .object({
    name: NameSchema,
    shared: z.boolean().default(false),
    filter: FilterTextSchema,
    sort: SortSchema.default("desc"),
    columns: ColumnsSchema.default([]),
  })
  .strict();
export type CreateViewBody = z.infer<typeof CreateViewBodySchema>;

export const PatchViewBodySchema = z
  .object({ name: NameSchema, shared: z.boolean(), filter: FilterTextSchema, sort: SortSchema, columns: ColumnsSchema })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, "send at least one of name, shared, filter, sort, columns");
export type PatchViewBody = z.infer<typeof PatchViewBodySchema>;

export const ViewIdParamsSchema = z.object({ id: bigintIdSchema("must be a saved view id (digits)") });

export const DefaultViewBodySchema = z
  .object({ viewId: bigintIdSchema("must be a saved view id (digits)").nullable().describe("null: no default view") })
  .strict();

export const ListViewsQuerySchema = z.object({
  counts: z
    .enum(["0", "1", "true", "false"])
    .transform((v) => v === "1" || v === "true")
    .default(false)
    .describe("1: each view's live count (the list's count for its filter)"),
});

export const ViewCountSchema = z.object({ total: z.number().int(), exact: z.boolean() });

export const SavedViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    owner: z.object({ id: z.string(), email: z.string().nullable() }),
    shared: z.boolean(),
    filter: z.string(),
    sort: z.enum(VIEW_SORTS),
    columns: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** the reader's default view */
    isDefault: z.boolean(),
    /** the reader may rename, share or delete it (its owner; an admin for a shared view) */
    editable: z.boolean(),
    /** with counts=1; null for views past the count cap */
    count: ViewCountSchema.nullable().optional(),
  })
  .meta({ id: "SavedView" });
export type SavedView = z.infer<typeof SavedViewSchema>;

export const SavedViewListSchema = z.object({ items: z.array(SavedViewSchema) }).meta({ id: "SavedViewList" });
