import { z } from "zod";
import type { Permission } from "../auth/permissions";

// OpenAPI 3.1 from the same zod schemas the route handlers parse with (z.toJSONSchema): a schema change changes
// the document, there is no second description to forget. 3.1 uses JSON Schema 2020-12, which is what zod
// emits, so the only rewriting is moving each schema's $defs into components.schemas.
// Each route describes its own operation in its defineRoute call (`openapi`); the document is built from the
// route files themselves (app/api/route-modules.generated.ts), so a route cannot be left out or described twice.

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** The document's sections, in the order the API reference shows them. */
export const TAGS = [
  "dead letters",
  "ingest",
  "triage",
  "groups",
  "replays",
  "accounts",
  "forensics",
  "sources",
  "notes",
  "saved views",
  "rules",
  "producer",
  "meta",
] as const;
export type Tag = (typeof TAGS)[number];

/** status → description and optional body schema */
export type Responses = Record<number, { description: string; schema?: z.ZodType }>;

export interface RawBody {
  /** content type → description, for bodies a route reads itself (streams, NDJSON) */
  contentTypes: string[];
  description: string;
  schema?: z.ZodType;
}

/** What a route says of its operation; the parameters and body come from the schemas its handler parses. */
export interface OperationDoc {
  tag: Tag;
  summary: string;
  description?: string;
  responses: Responses;
  /** the body of a route that reads it itself (streams, NDJSON) */
  rawBody?: RawBody;
}

/** A route kept out of the document, with the reason (the catch-all that answers unknown paths 404). */
export interface Undocumented {
  undocumented: string;
}

/** An operation as its handler carries it (RouteHandler.meta.openapi): the route's description and schemas. */
export interface DescribedOperation extends OperationDoc {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

/**
 * What a handler says of itself: one operation; or, for a catch-all route that serves several paths itself
 * (better-auth's), one operation per path below the route's own (`/sign-in/email` under /api/auth).
 */
export type RouteDescription = DescribedOperation | Undocumented | { subpaths: Record<string, DescribedOperation> };

type Access = { public: true } | { permission: Permission; tokenOnly?: true; auditedRead?: true };

export interface Operation {
  method: HttpMethod;
  /** OpenAPI path, e.g. /api/dead-letters/{id} */
  path: string;
  tag: Tag;
  summary: string;
  description?: string;
  access: Access;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType | RawBody;
  responses: Responses;
}

type JsonSchema = Record<string, unknown>;

/** The body of every 4xx/5xx answer (lib/errors/app-error.ts AppError.toJSON). */
export const ErrorBodySchema = z
  .object({
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
      issues: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .describe("each field and the rule it broke; empty when no field is at fault"),
    }),
  })
  .meta({ id: "Error" });

const ERROR_REF = { $ref: "#/components/schemas/Error" };

/**
 * What the document says of a schema beyond what it says itself: a contract that cannot import a registry carries a
 * type's name as a plain string (lib/vocabulary/plug-types.ts), and the registry's values are added here.
 */
export type Filled = ReadonlyMap<z.ZodType, JsonSchema>;

class SchemaSink {
  readonly components: Record<string, JsonSchema> = {};
  private anonymous = 0;

  constructor(private readonly filled: Filled) {}

  /** JSON Schema for `schema`, its named parts moved to components.schemas. */
  convert(schema: z.ZodType, io: "input" | "output"): JsonSchema {
    const override = ({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: JsonSchema }) => {
      Object.assign(jsonSchema, this.filled.get(zodSchema as z.ZodType));
    };
    const json = z.toJSONSchema(schema, { io, unrepresentable: "any", reused: "inline", override }) as JsonSchema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    delete json.$schema;
    const rename = new Map<string, string>();
    const fix = (value: JsonSchema): JsonSchema =>
      JSON.parse(
        JSON.stringify(value).replace(/"#\/\$defs\/([^"]+)"/g, (_, id: string) => `"#/components/schemas/${rename.get(id) ?? id}"`),
      );
    for (const id of Object.keys(defs)) rename.set(id, id.startsWith("__schema") ? `Anonymous${++this.anonymous}` : id);
    // The same named schema can differ between request (input) and response (output) forms: keep both.
    for (const [id, def] of Object.entries(defs)) {
      const name = rename.get(id)!;
      const existing = this.components[name];
      if (existing && JSON.stringify(existing) !== JSON.stringify(fix(def)))
        rename.set(id, `${name}${io === "input" ? "Input" : "Output"}`);
    }
    for (const [id, def] of Object.entries(defs)) this.components[rename.get(id) ?? id] = fix(def);
    return fix(json);
  }
}

function isRawBody(body: Operation["body"]): body is RawBody {
  return typeof body === "object" && body !== null && "contentTypes" in body;
}

/** zod's date coercion has no JSON Schema; say what the query string accepts instead. */
function parameterSchema(sink: SchemaSink, schema: z.ZodType): JsonSchema {
  const json = sink.convert(schema, "output");
  return Object.keys(json).length === 0 ? { type: "string", description: "RFC 3339 time or epoch seconds" } : json;
}

function parameters(sink: SchemaSink, where: "path" | "query", schema: z.ZodObject | undefined): JsonSchema[] {
  if (!schema) return [];
  return Object.entries(schema.shape).map(([name, prop]) => {
    const s = parameterSchema(sink, prop as z.ZodType);
    const isArray = s.type === "array";
    return {
      name,
      in: where,
      required: where === "path" || !(prop as z.ZodType).safeParse(undefined).success,
      schema: s,
      ...(typeof s.description === "string" ? { description: s.description } : {}),
      // Lists are comma-separated (kind=spatial,afc) or repeated (kind=spatial&kind=afc); both are accepted.
      ...(isArray ? { style: "form", explode: false } : {}),
    };
  });
}

export function buildOpenApi(
  operations: readonly Operation[],
  info: { title: string; version: string; description: string },
  filled: Filled = new Map(),
) {
  const sink = new SchemaSink(filled);
  sink.convert(ErrorBodySchema, "output");
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      responses[status] = {
        description: r.description,
        ...(r.schema ? { content: { "application/json": { schema: sink.convert(r.schema, "output") } } } : {}),
      };
    }
    // better-auth's routes (/api/auth/…) answer with its own errors: only what each documents itself.
    const ours = !op.path.startsWith("/api/auth/");
    const standard: [number, string, boolean][] = [
      [400, "Malformed request (bad JSON)", ours && op.body !== undefined],
      [401, "Not signed in and no bearer token", !("public" in op.access)],
      [403, "The role lacks the permission (named in the body)", !("public" in op.access)],
      [
        413,
        "The JSON body is larger than the route takes (4 MB; a triage action 1 MB)",
        ours && op.body !== undefined && !isRawBody(op.body),
      ],
      [
        422,
        "Validation failed: `issues` names each field and rule",
        ours && (op.body !== undefined || op.query !== undefined || op.params !== undefined),
      ],
    ];
    for (const [status, description, applies] of standard) {
      if (applies && !responses[status]) responses[status] = { description, content: { "application/json": { schema: ERROR_REF } } };
    }
    let requestBody: unknown;
    if (isRawBody(op.body)) {
      const schema = op.body.schema ? sink.convert(op.body.schema, "input") : {};
      requestBody = {
        required: true,
        description: op.body.description,
        content: Object.fromEntries(op.body.contentTypes.map((t) => [t, { schema }])),
      };
    } else if (op.body) {
      requestBody = { required: true, content: { "application/json": { schema: sink.convert(op.body, "input") } } };
    }
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      tags: [op.tag],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      operationId: `${op.method}${op.path.replace(/[{}]/g, "").replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
      security: "public" in op.access ? [] : op.access.tokenOnly ? [{ bearer: [] }] : [{ bearer: [] }, { session: [] }],
      ...("permission" in op.access ? { "x-permission": op.access.permission } : {}),
      parameters: [...parameters(sink, "path", op.params), ...parameters(sink, "query", op.query)],
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info,
    servers: [{ url: "/" }],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: sink.components,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An API token (rdv_…) from Settings → API tokens" },
        session: { type: "apiKey", in: "cookie", name: "better-auth.session_token", description: "The browser session after sign-in" },
      },
    },
  };
}
