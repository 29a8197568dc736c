import { z } from "zod";
import { ListFilterSchema, ListQuerySchema } from "../lib/dead-letters/filters";
for (const io of ["input", "output"] as const) {
  console.log(io, JSON.stringify(z.toJSONSchema(ListQuerySchema, { io, unrepresentable: "any" }), null, 0).slice(0, 2000));
}
type J = string | number | boolean | null | J[] | { [k: string]: J };
const JsonValue: z.ZodType<J> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)]));
console.log(JSON.stringify(z.toJSONSchema(z.object({ p: JsonValue }).meta({id: "X"}))));
