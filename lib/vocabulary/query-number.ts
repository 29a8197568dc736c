import { z } from "zod";

/** What a number in a query string is written as: a sign, decimal digits and a fraction. */
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * A number parameter of a query string (limit=50, zoom=3.5). z.coerce.number() reads the text with Number(), which
 * also takes "0x10", "0b11", "1e3" and " 7": a page of 16 for limit=0x10. Such text is refused, naming the parameter.
 * Give `schema` its default and description inside (queryNumber(z.number().max(5).default(1))): OpenAPI then renders
 * the parameter exactly as the coerced number it replaces.
 */
export function queryNumber<T extends z.ZodType<number | undefined>>(schema: T) {
  return z.preprocess((value, ctx) => {
    if (typeof value !== "string") return value; // absent (the default applies) or repeated (the number refuses it)
    if (DECIMAL.test(value)) return Number(value);
    ctx.addIssue({ code: "custom", message: "must be a number in decimal digits", input: value });
    return value;
  }, schema);
}
