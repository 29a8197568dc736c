import { z } from "zod";
import type { RouteMeta } from "./handler";
import { SINK_TYPES } from "../replay/sinks/registry";
import { SinkTypeNameSchema } from "../vocabulary/plug-types";
import { TAGS, buildOpenApi, type DescribedOperation, type Filled, type HttpMethod, type Operation } from "./openapi";

// The OpenAPI operations read from the route files themselves: each route's path from its folder, each method
// from its exports, the access from what its handler checks, and the rest from its defineRoute's `openapi`.

/** One route file: its folder under app/api as the tree spells it (`dead-letters/[id]/actions`), and its exports. */
export interface RouteModule {
  dir: string;
  module: Readonly<Record<string, unknown>>;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

function metaOf(handler: unknown): RouteMeta | undefined {
  return typeof handler === "function" && "meta" in handler ? (handler.meta as RouteMeta) : undefined;
}

/** `dead-letters/[id]/actions` → `/api/dead-letters/{id}/actions`; a catch-all segment (`[...all]`) is dropped. */
export function openApiPath(dir: string): string {
  const segments = dir
    .split("/")
    .filter((s) => s !== "" && !s.startsWith("[..."))
    .map((s) => s.replace(/^\[(\w+)\]$/, "{$1}"));
  return ["/api", ...segments].join("/");
}

function objectSchema(schema: z.ZodType | undefined, where: string): z.ZodObject | undefined {
  if (schema === undefined) return undefined;
  if (schema instanceof z.ZodObject) return schema;
  throw new Error(`${where}: only an object schema can be documented as parameters`);
}

function operation(method: HttpMethod, path: string, access: Operation["access"], d: DescribedOperation): Operation {
  const where = `${method.toUpperCase()} ${path}`;
  if (d.body && d.rawBody) throw new Error(`${where}: a route parses its body or reads it itself (rawBody), not both`);
  return {
    method,
    path,
    tag: d.tag,
    summary: d.summary,
    ...(d.description ? { description: d.description } : {}),
    access,
    params: objectSchema(d.params, where),
    query: objectSchema(d.query, where),
    body: d.body ?? d.rawBody,
    responses: d.responses,
  };
}

/**
 * Every documented operation of the route files, in TAGS order and then the routes' order. Throws when a method a
 * route answers has no description: tests/unit/route-descriptions.test.ts names the file.
 */
export function operationsOf(routes: readonly RouteModule[]): Operation[] {
  const out: Operation[] = [];
  for (const { dir, module } of routes) {
    const base = openApiPath(dir);
    for (const METHOD of METHODS) {
      if (module[METHOD] === undefined) continue;
      const meta = metaOf(module[METHOD]);
      const where = `${METHOD} ${base} (app/api/${dir}/route.ts)`;
      if (!meta) throw new Error(`${where} is not a described handler: build it with defineRoute or describedRoute`);
      const { access, openapi } = meta;
      if ("notAllowed" in access) continue;
      if (!openapi) throw new Error(`${where} does not describe itself: add openapi to its defineRoute`);
      if ("undocumented" in openapi) continue;
      const method = METHOD.toLowerCase() as HttpMethod;
      if ("subpaths" in openapi) {
        for (const [sub, d] of Object.entries(openapi.subpaths)) out.push(operation(method, `${base}${sub}`, access, d));
      } else {
        if (dir.includes("[...")) throw new Error(`${where}: a catch-all route describes each path it serves (subpaths)`);
        out.push(operation(method, base, access, openapi));
      }
    }
  }
  return out.sort((a, b) => TAGS.indexOf(a.tag) - TAGS.indexOf(b.tag));
}

const INFO = {
  title: "Redrive API",
  version: "1",
  description:
    "Triage and paced replay of dead-lettered spatial (GeoJSON) and AFC (fare tap) events. Authenticate with `Authorization: Bearer <API token>` " +
    "or the browser session. Errors answer `{ error: { code, message, issues } }` (issues: `[{ path, message }]`, empty when no field is at fault); 4xx messages name the field and the rule.",
};

/** The sink types the contracts name without the registry (lib/vocabulary/plug-types.ts), listed from it. */
const FILLED: Filled = new Map([[SinkTypeNameSchema, { enum: [...SINK_TYPES] }]]);

const cache = new WeakMap<readonly RouteModule[], ReturnType<typeof buildOpenApi>>();

/** The OpenAPI document of the given route files (app/api/route-modules.generated.ts), built once per list. */
export function openApiDocument(routes: readonly RouteModule[]): ReturnType<typeof buildOpenApi> {
  let doc = cache.get(routes);
  if (!doc) cache.set(routes, (doc = buildOpenApi(operationsOf(routes), INFO, FILLED)));
  return doc;
}
