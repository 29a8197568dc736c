import { z } from "zod";
import { queryNumber } from "../vocabulary/query-number";
import { CLASSES, KINDS, STATUSES } from "../vocabulary/record";
import { timeBoundSchema } from "../time/filter-bound";
import { holdsCardNumber } from "../masking/mask";
import { CARD_NUMBER_REFUSED, searchText } from "../masking/searchable";
import { parsePayloadSearch } from "./search-syntax";

// The list's filters: one schema for the API's query string, the page's URL and bulk/replay selections.

export { CLASSES, KINDS, STATUSES };

/** "a,b" or ["a","b"] (a repeated query parameter) → ["a","b"] */
function listOf<T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess((v) => (typeof v === "string" ? v.split(",").filter(Boolean) : v), z.array(z.enum(values)).min(1));
}

/** A time to the minute ("2026-01-01T00:00", what a datetime-local input gives), an offset optional. */
/**
 * RFC 7946 §5.2: a box crossing the antimeridian has west > east (177,-18,-177,-15); the queries take it unwrapped
 * (177,-18,183,-15), so such a box is unwrapped here. Anything else keeps min ≤ max.
 */
function unwrapAntimeridian(v: unknown): unknown {
  if (!Array.isArray(v) || v.length !== 4 || !v.every((n) => typeof n === "number")) return v;
  const [west, south, east, north] = v as number[];
  return west! > east! && west! <= 180 && east! >= -180 ? [west, south, east! + 360, north] : v;
}

export const BboxSchema = z.preprocess(
  (v) => unwrapAntimeridian(typeof v === "string" ? v.split(",").map((n) => (n.trim() === "" ? NaN : Number(n))) : v),
  z
    .tuple([z.number().finite(), z.number().finite(), z.number().finite(), z.number().finite()], {
      error: "must be minLon,minLat,maxLon,maxLat",
    })
    // Range first: 177,-18,-200,-15 is out of range (no RFC 7946 box), not "min exceeds max".
    .refine(([x1, y1, x2, y2]) => x1 >= -540 && x2 >= -540 && x1 <= 540 && x2 <= 540 && y1 >= -90 && y2 <= 90, "out of range for EPSG:4326")
    .refine(
      ([x1, y1, x2, y2]) => x1 <= x2 && y1 <= y2,
      "min must not exceed max (a box across ±180° may give west > east, both within ±180)",
    ),
);

export { CARD_NUMBER_REFUSED };

export const ListFilterSchema = z
  .object({
    kind: listOf(KINDS).optional(),
    status: listOf(STATUSES).optional(),
    class: listOf(CLASSES).optional(),
    source: z
      .preprocess((v) => (typeof v === "string" ? v.split(",").filter(Boolean) : v), z.array(searchText(z.string().min(1).max(200))).min(1))
      .optional(),
    /** a broker source's name: the records pulled from it (dead_letter.origin_source) */
    origin: searchText(z.string().min(1).max(64)).optional(),
    /** a reason group (see reasonGroup): every record whose reason has this pattern */
    reason: searchText(z.string().min(1).max(1000)).optional(),
    from: timeBoundSchema("from").optional(),
    /** inclusive: a bare day or a time to the minute reaches to its end */
    to: timeBoundSchema("to").optional(),
    /**
     * idempotency key, event hash (full or ≥ 8 hex chars prefix), event_id, device_id or source message id; and
     * inside the working payload: free words, key:value or path = value (search-syntax.ts)
     */
    q: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .check((ctx) => {
        if (holdsCardNumber(ctx.value)) return void ctx.issues.push({ code: "custom", message: CARD_NUMBER_REFUSED, input: ctx.value });
        const parsed = parsePayloadSearch(ctx.value);
        if (!parsed.ok) ctx.issues.push({ code: "custom", message: parsed.message, input: ctx.value });
      })
      .optional(),
    /**
     * text in the record's notes: a case-insensitive substring. Three characters at least: the trigram index
     * answers nothing shorter, so a 2-character pattern would read every note.
     */
    note: searchText(z.string().trim().min(3, "at least 3 characters").max(200)).optional(),
    bbox: BboxSchema.optional(),
  })
  .check((ctx) => {
    const { from, to } = ctx.value;
    // An empty result would look like "nothing failed then"; the range is more likely typed backwards.
    if (from && to && from > to) ctx.issues.push({ code: "custom", path: ["from"], message: "must not be later than to", input: from });
  });
export type ListFilter = z.infer<typeof ListFilterSchema>;

/**
 * The list filter inside a JSON body (replay batches, bulk actions, quarantine): an unknown key is refused, not
 * ignored — a typo (`sourcee`) would otherwise widen a replay to every approved record. URLs keep the lenient
 * ListFilterSchema (they carry cursor, limit, format… beside the filter).
 */
export const FilterBodySchema = ListFilterSchema.strict();

/** A filter that narrows nothing: it selects every record. */
export function isEmptyFilter(filter: Record<string, unknown>): boolean {
  return Object.values(filter).every((v) => v === undefined);
}

/** For a body with a filter: acting on everything takes the count the user confirmed, not an empty object. */
export const EMPTY_FILTER_NEEDS_COUNT =
  "is empty and selects every record: send expectedCount (the count you confirmed) to act on all of them";

export const ListQuerySchema = ListFilterSchema.extend({
  cursor: z.string().max(200).optional(),
  limit: queryNumber(z.number().int().min(1).max(500).default(100)),
  order: z.enum(["asc", "desc"]).default("desc"),
});
export type ListQuery = z.infer<typeof ListQuerySchema>;
