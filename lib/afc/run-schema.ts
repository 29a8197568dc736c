// Run a zod schema through its Standard Schema entry point instead of safeParse. Same checks, same issues,
// but no ZodError: that is an Error subclass, and building it (stack capture + issue finalizing) is most of a
// failing tap's validation cost. Failing parses are the norm here — every dead letter is one.
import type * as z from "zod";

export type SchemaRun<T> = { ok: true; data: T } | { ok: false; issues: z.core.$ZodIssue[] };

export function runSchema<S extends z.ZodType>(schema: S, value: unknown): SchemaRun<z.output<S>> {
  const result = schema["~standard"].validate(value);
  if (result instanceof Promise) throw new TypeError("runSchema: schema must be synchronous");
  if (result.issues === undefined) return { ok: true, data: result.value };
  return { ok: false, issues: result.issues.map(asZodIssue) };
}

interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

// zod hands back its own finalized issues here; the Standard Schema type only promises message + path, so
// check the discriminant rather than assume, and keep anything unexpected as a custom issue with its message.
function asZodIssue(issue: StandardIssue): z.core.$ZodIssue {
  if (isZodIssue(issue)) return issue;
  const path = (issue.path ?? []).map((p) => (typeof p === "object" ? p.key : p));
  return { code: "custom", path, message: issue.message };
}

const ZOD_CODES: ReadonlySet<string> = new Set<z.core.$ZodIssue["code"]>([
  "invalid_type",
  "too_big",
  "too_small",
  "invalid_format",
  "not_multiple_of",
  "unrecognized_keys",
  "invalid_union",
  "invalid_key",
  "invalid_element",
  "invalid_value",
  "custom",
]);

function isZodIssue(issue: StandardIssue): issue is z.core.$ZodIssue & StandardIssue {
  const code: unknown = "code" in issue ? issue.code : undefined;
  return typeof code === "string" && ZOD_CODES.has(code) && Array.isArray(issue.path);
}
