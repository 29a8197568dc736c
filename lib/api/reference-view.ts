import { z } from "zod";

// The API reference page's reading of the OpenAPI document (/api/openapi.json): each operation with its method,
// path, permission, parameters, request body and responses, in the document's order, grouped by tag. Parsed
// with zod, so a change in the document's shape fails here (and in its test) rather than as an empty page.

const SchemaObject = z.record(z.string(), z.unknown());

const MediaMap = z.record(z.string(), z.object({ schema: SchemaObject.optional() })).optional();

const OperationDoc = z.object({
  tags: z.array(z.string()).default([]),
  summary: z.string(),
  description: z.string().optional(),
  operationId: z.string(),
  "x-permission": z.string().optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))).default([]),
  parameters: z
    .array(
      z.object({
        name: z.string(),
        in: z.string(),
        required: z.boolean().default(false),
        description: z.string().optional(),
        schema: SchemaObject.default({}),
      }),
    )
    .default([]),
  requestBody: z.object({ description: z.string().optional(), content: MediaMap }).optional(),
  responses: z.record(z.string(), z.object({ description: z.string(), content: MediaMap })),
});

const DocumentShape = z.object({
  info: z.object({ title: z.string(), version: z.string(), description: z.string().optional() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.object({ schemas: z.record(z.string(), SchemaObject).default({}) }).default({ schemas: {} }),
});

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

export interface ReferenceParameter {
  name: string;
  in: string;
  required: boolean;
  type: string;
  description: string | null;
}

export interface ReferenceOperation {
  id: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  description: string | null;
  /** the permission the route checks; null when anyone may call it */
  permission: string | null;
  public: boolean;
  parameters: ReferenceParameter[];
  body: { description: string | null; contentTypes: string[]; schema: Record<string, unknown> | null } | null;
  responses: { status: string; description: string; schema: Record<string, unknown> | null }[];
}

export interface ReferenceView {
  title: string;
  version: string;
  description: string | null;
  tags: { name: string; operations: ReferenceOperation[] }[];
  schemas: { name: string; schema: Record<string, unknown> }[];
}

/** A parameter's type in a word or two: `string`, `integer`, `string[]`, `"a" | "b"`. */
export function typeLabel(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (typeof schema.$ref === "string") return schema.$ref.split("/").at(-1) ?? schema.$ref;
  if (schema.type === "array" && typeof schema.items === "object" && schema.items !== null) {
    return `${typeLabel(schema.items as Record<string, unknown>)}[]`;
  }
  if (typeof schema.type === "string") return schema.type;
  if (Array.isArray(schema.type)) return schema.type.join(" | ");
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return options.map((o) => typeLabel(o as Record<string, unknown>)).join(" | ");
  }
  return "any";
}

function firstSchema(content: z.infer<typeof MediaMap>): Record<string, unknown> | null {
  const media = content ? Object.values(content)[0] : undefined;
  return media?.schema && Object.keys(media.schema).length > 0 ? media.schema : null;
}

export function referenceView(document: unknown): ReferenceView {
  const doc = DocumentShape.parse(document);
  const byTag = new Map<string, ReferenceOperation[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      if (item[method] === undefined) continue;
      const op = OperationDoc.parse(item[method]);
      const tag = op.tags[0] ?? "other";
      const entry: ReferenceOperation = {
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        tag,
        summary: op.summary,
        description: op.description ?? null,
        permission: op["x-permission"] ?? null,
        public: op.security.length === 0,
        parameters: op.parameters.map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required,
          type: typeLabel(p.schema),
          description: p.description ?? null,
        })),
        body: op.requestBody
          ? {
              description: op.requestBody.description ?? null,
              contentTypes: Object.keys(op.requestBody.content ?? {}),
              schema: firstSchema(op.requestBody.content),
            }
          : null,
        responses: Object.entries(op.responses).map(([status, r]) => ({
          status,
          description: r.description,
          schema: firstSchema(r.content),
        })),
      };
      byTag.set(tag, [...(byTag.get(tag) ?? []), entry]);
    }
  }
  return {
    title: doc.info.title,
    version: doc.info.version,
    description: doc.info.description ?? null,
    tags: [...byTag].map(([name, operations]) => ({ name, operations })),
    schemas: Object.entries(doc.components.schemas).map(([name, schema]) => ({ name, schema })),
  };
}
