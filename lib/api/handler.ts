import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { authenticate, type Principal } from "../auth/principal";
import { can, type Permission } from "../auth/permissions";
import { suspectText, unstorable } from "../json/storable";
import { isTooDeep, nestsDeeperThan, TOO_DEEP } from "../json/depth";
import { AppError, bodyError, issueError, notUtf8Body, validationError } from "../errors/app-error";
import { SecretError } from "../secrets/kept-secret";
import { searchParamsToObject } from "../net/search-params";
import { startedByRedrive } from "../auth/fetch-site";
import { maskAnswer } from "../masking/answer";
import { configuredMaskRules } from "../masking/config";
import type { OperationDoc, RouteDescription, Undocumented } from "./openapi";

// Every route handler goes through defineRoute: authentication, the permission check, CSRF origin check,
// parsing of params/query/body with zod, and the mapping of errors to HTTP happen here and nowhere else.

/**
 * Who may call a route; `notAllowed` marks otherMethods' 405 answers, which run nothing. `tokenOnly`: a browser
 * session is refused (401), for routes meant for machines holding an API token (a Prometheus scrape), which a
 * page open in a browser has no reason to call. `auditedRead`: every read writes an audit event in the reader's
 * name (an export), so a browser session may start one only from Redrive's own pages (lib/auth/fetch-site.ts).
 */
type Access = { public: true } | { permission: Permission; tokenOnly?: true; auditedRead?: true } | { notAllowed: true };

export interface RouteContext<P, Q, B> {
  req: Request;
  params: P;
  query: Q;
  body: B;
  principal: Principal | null;
  requestId: string;
  now: Date;
}

export interface RouteSpec<P, Q, B> {
  access: Access;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  /** JSON body schema; omit for routes that read the body themselves (streams) */
  body?: z.ZodType<B>;
  /** the body may be left out: an empty body is read as `{}` (every member optional) */
  bodyOptional?: boolean;
  /**
   * The answer is meant to hold what the masking pass would hide (a revealed field for an auditor, a generated
   * password shown once): it leaves as the route wrote it. Every other JSON answer goes through maskAnswer unless
   * the caller may and did ask for card data in clear (unmask=1).
   */
  clearAnswer?: true;
  /** the largest JSON body this route reads, in bytes (default MAX_JSON_BODY_BYTES); larger answers 413 unread */
  maxBodyBytes?: number;
  /**
   * The operation in /api/openapi.json (lib/api/route-operations.ts): summary, tag, responses; its parameters and
   * body are the schemas above.
   */
  openapi: OperationDoc | Undocumented;
}

export interface RouteMeta {
  access: Access;
  /** absent on otherMethods' 405 answers, which are not operations */
  openapi?: RouteDescription;
}

type NextCtx = { params: Promise<Record<string, string | string[]>> };
export type RouteHandler = ((req: Request, ctx: NextCtx) => Promise<Response>) & { meta: RouteMeta };

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Browsers send Origin on cross-site mutations; a cookie-authenticated mutation must come from our origin. */
function checkOrigin(req: Request, principal: Principal | null): void {
  if (!MUTATING.has(req.method) || principal?.via !== "session") return;
  const origin = req.headers.get("origin");
  if (origin === null) return; // same-origin fetches from old browsers / non-browser clients with cookies
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new AppError("forbidden", "cross-site request refused (bad Origin header)");
  }
  if (!host || originHost !== host) throw new AppError("forbidden", "cross-site request refused (Origin does not match)");
}

/**
 * A JSON answer with a status or headers of its own (201 with Location, a download's Content-Disposition): it goes
 * through the same masking pass as an object a route returns. A route that builds a Response itself is on its own.
 */
export class JsonAnswer {
  constructor(
    readonly body: unknown,
    readonly init: { status?: number; headers?: Record<string, string> } = {},
  ) {}
}

export function answer(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): JsonAnswer {
  return new JsonAnswer(body, init);
}

/**
 * Reads audited in the reader's name (card data in clear, exports) with a browser session must come from Redrive's
 * own pages: another site, port or subdomain could otherwise start one in a signed-in auditor's browser.
 */
function checkStartedHere(req: Request, principal: Principal | null, rawQuery: Record<string, unknown>, access: Access): void {
  if (principal?.via !== "session" || startedByRedrive(req.headers)) return;
  if (wantsUnmask(rawQuery)) {
    throw new AppError(
      "forbidden",
      "card data in clear is opened from Redrive's own pages, not from another site or port (it is audited in your name)",
    );
  }
  if ("auditedRead" in access && access.auditedRead) {
    throw new AppError(
      "forbidden",
      "an export is started from Redrive's own pages, not from another site or port (it is audited in your name)",
    );
  }
}

/**
 * Every API answer is per reader and may hold card data in clear (an auditor's unmask=1, a token's secret): no
 * browser or proxy cache keeps it.
 */
const NO_STORE = "no-store";

/** Node's error for a request body cut off by its client (IncomingMessage "aborted"). */
function clientWentAway(err: unknown): boolean {
  return err instanceof Error && err.message === "aborted" && (err as { code?: unknown }).code === "ECONNRESET";
}

export function errorResponse(err: unknown, requestId: string): Response {
  if (err instanceof AppError) {
    const headers: Record<string, string> = { "x-request-id": requestId, "cache-control": NO_STORE };
    if (err.code === "unauthenticated") headers["www-authenticate"] = 'Bearer realm="redrive"';
    // An error's message and issues may quote what the request or the record holds (a field, a key, a value):
    // they get the pass every other answer gets.
    return Response.json(maskAnswer(err.toJSON(), configuredMaskRules()), { status: err.status, headers });
  }
  if (err instanceof SecretError) {
    // Names the setting, never a value: an admin saving SSO settings learns what the operator must set.
    console.error(`[api] ${requestId} ${err.message}`);
    return errorResponse(new AppError("misconfigured", err.message), requestId);
  }
  if (clientWentAway(err)) {
    // Nobody reads this answer (a browser cancelled a request while sending it: a debounced live query); a line,
    // not an "unhandled error" with its stack.
    console.warn(`[api] ${requestId} the client closed the connection before its request was read`);
    return errorResponse(new AppError("bad_request", "the request was not read whole: the client closed the connection"), requestId);
  }
  console.error(`[api] ${requestId} unhandled error`, err);
  return Response.json(
    { error: { code: "internal", message: "Internal server error", issues: [], requestId } },
    { status: 500, headers: { "x-request-id": requestId, "cache-control": NO_STORE } },
  );
}

/**
 * Largest JSON body a route reads unless it says otherwise (ingest and tap capture stream theirs and have their own
 * limits): a replay of 100,000 ids is ~1.5 MB. Larger answers 413 before it is parsed. A body is parsed, checked
 * and walked on the thread that answers every request, linear in its size: 4 MB of anything else stays well under
 * a second of it, and a route whose body does more per byte says less (an action: 1 MB).
 */
export const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;

function tooLarge(max: number): AppError {
  const message = `larger than ${max / 1024 / 1024} MB`;
  return new AppError("payload_too_large", `body: ${message}`, { issues: [{ path: "body", message }] });
}

/**
 * A request body as text, at most MAX_JSON_BODY_BYTES (413 beyond), decoded strictly: bytes that are not UTF-8 are
 * a 400, not U+FFFD stored in their place (req.text() would replace them silently).
 */
export async function readBodyText(req: Request, max = MAX_JSON_BODY_BYTES): Promise<string> {
  const bytes = await readBodyBytes(req, max);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw notUtf8Body();
  }
}

/** The body's bytes, at most `max` of them (413 past it, before they are all held). */
export async function readBodyBytes(req: Request, max = MAX_JSON_BODY_BYTES): Promise<Buffer> {
  if (Number(req.headers.get("content-length") ?? 0) > max) throw tooLarge(max);
  // Counted while it arrives: a chunked body has no Content-Length, and must not be held whole before the check.
  const parts: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      size += r.value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        throw tooLarge(max);
      }
      parts.push(r.value);
    }
  }
  return Buffer.concat(parts, size);
}

export async function readJson(req: Request, whenEmpty?: unknown, max = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const text = await readBodyText(req, max);
  if (text.trim() === "" && whenEmpty !== undefined) return whenEmpty;
  if (text.trim() === "")
    throw new AppError("invalid_json", "body: a JSON body is required", { issues: [{ path: "body", message: "required" }] });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (isTooDeep(e)) throw bodyError(TOO_DEEP);
    throw new AppError("invalid_json", `body: not valid JSON (${(e as Error).message})`, {
      issues: [{ path: "body", message: "not valid JSON" }],
    });
  }
  // Every JSON body goes to PostgreSQL in some form: NUL and unpaired surrogates (lib/json/storable.ts)
  // would fail the statement with a 500; say which field instead.
  const bad = suspectText(text) ? unstorable(value, "") : null;
  if (bad) throw issueError({ ...bad, path: bad.path || "body" });
  if (nestsDeeperThan(value)) throw bodyError(TOO_DEEP);
  return value;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

/**
 * Handlers answering 405 with a JSON error and `Allow` for the methods a route does not have (Next.js would
 * answer them with an empty body). A route exports the ones it lacks:
 * `export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");` — exporting one it has is a duplicate
 * export, which the compiler refuses.
 */
/** The caller's X-Request-Id (bounded), or a new one: echoed on the answer and recorded with audit events. */
export function requestIdOf(req: Request): string {
  return req.headers.get("x-request-id")?.slice(0, 100) || randomUUID();
}

/** The JSON 404 for an /api path no route has (the catch-all route, and better-auth's unknown paths). */
export function noRouteError(req: Request): AppError {
  return new AppError("not_found", `no API route ${req.method} ${new URL(req.url).pathname} (see /api/openapi.json)`);
}

export function otherMethods(...allowed: Method[]): Record<Method, RouteHandler> {
  const allow = [...allowed, ...(allowed.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
  const handler = async (req: Request): Promise<Response> => {
    const requestId = requestIdOf(req);
    const res = errorResponse(
      new AppError("method_not_allowed", `${req.method} is not allowed here; allowed: ${allow}`, { details: { allow } }),
      requestId,
    );
    res.headers.set("allow", allow);
    return res;
  };
  const route: RouteHandler = Object.assign(handler, { meta: { access: { notAllowed: true as const } } });
  return Object.fromEntries(METHODS.map((m) => [m, route])) as Record<Method, RouteHandler>;
}

export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  spec: RouteSpec<P, Q, B>,
  fn: (ctx: RouteContext<P, Q, B>) => Promise<Response | unknown>,
): RouteHandler {
  const handler = async (req: Request, nextCtx: NextCtx): Promise<Response> => {
    const requestId = requestIdOf(req);
    try {
      const principal = await authenticate(req);
      if ("permission" in spec.access) {
        if (!principal) throw new AppError("unauthenticated", "sign in or send Authorization: Bearer <token>");
        if (spec.access.tokenOnly && principal.via !== "token") {
          throw new AppError("unauthenticated", "this route takes an API token, not a browser session: send Authorization: Bearer <token>");
        }
        if (!can(principal.role, spec.access.permission)) {
          throw new AppError("forbidden", `role ${principal.role} lacks permission ${spec.access.permission}`, {
            details: { permission: spec.access.permission },
          });
        }
      }
      checkOrigin(req, principal);
      const rawParams = nextCtx?.params ? await nextCtx.params : {};
      const url = new URL(req.url);
      const rawQuery = searchParamsToObject(url.searchParams);
      checkStartedHere(req, principal, rawQuery, spec.access);
      const badInput = unstorable(rawParams, "params") ?? unstorable(rawQuery, "query");
      if (badInput) throw issueError(badInput);
      const params = spec.params ? parse(spec.params, rawParams, "params") : (rawParams as P);
      const query = spec.query ? parse(spec.query, rawQuery, "query") : ({} as Q);
      const body = spec.body
        ? parse(spec.body, await readJson(req, spec.bodyOptional ? {} : undefined, spec.maxBodyBytes), "body")
        : (undefined as B);
      const out = await fn({ req, params, query, body, principal, requestId, now: new Date() });
      if (out instanceof Response) {
        out.headers.set("x-request-id", requestId);
        if (!out.headers.has("cache-control")) out.headers.set("cache-control", NO_STORE);
        return out;
      }
      const clear = spec.clearAnswer || (wantsUnmask(rawQuery) && principal !== null && can(principal.role, "dead_letters:unmask"));
      const { body: data, init } = out instanceof JsonAnswer ? out : new JsonAnswer(out);
      return Response.json(clear ? data : maskAnswer(data, configuredMaskRules()), {
        status: init.status ?? 200,
        headers: { "cache-control": NO_STORE, ...init.headers, "x-request-id": requestId },
      });
    } catch (err) {
      return errorResponse(err, requestId);
    }
  };
  // The type requires a description; a route that lacks one anyway (a cast) is named by tests/unit/route-descriptions.test.ts.
  const doc = spec.openapi as RouteSpec<P, Q, B>["openapi"] | undefined;
  const openapi: RouteDescription | undefined =
    doc === undefined || "undocumented" in doc ? doc : { ...doc, params: spec.params, query: spec.query, body: spec.body };
  return Object.assign(handler, { meta: { access: spec.access, openapi } });
}

/**
 * A handler not built with defineRoute (better-auth's) with the access it applies itself and its description, so
 * the OpenAPI document lists it like every other route.
 */
export function describedRoute(handler: (req: Request) => Promise<Response>, access: Access, openapi: RouteDescription): RouteHandler {
  // A function of its own: better-auth hands out one function for both GET and POST, each described differently.
  return Object.assign((req: Request) => handler(req), { meta: { access, openapi } });
}

function wantsUnmask(query: Record<string, unknown>): boolean {
  return query.unmask === "1" || query.unmask === "true";
}

function parse<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(where, r.error);
  return r.data;
}
