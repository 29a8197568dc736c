import { z } from "zod";
import { bigintIdSchema } from "../../db/column-limits";
import { isJsonValue, type JsonValue } from "../../json/value";

// The triage API's contract is this folder, one file per resource: the route handlers parse with its schemas,
// the client hooks type with them and lib/api/openapi.ts documents them. It ships to the browser, so it imports
// no server code (the lint and tests/unit/architecture.test.ts refuse it). Here: the fields every resource shares.

export const IdSchema = bigintIdSchema("must be a dead letter id (digits)");
export const IdParamsSchema = z.object({ id: IdSchema });

export const JsonValueSchema: z.ZodType<JsonValue> = z
  // A custom check rather than a recursive union (lib/json/value.ts says why); OpenAPI renders it as any value.
  .custom<JsonValue>(isJsonValue, { error: (issue) => (issue.input === undefined ? "is required" : "must be a JSON value") })
  .meta({ id: "JsonValue", description: "Any JSON value" });
