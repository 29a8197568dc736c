import type { z } from "zod";

// One typed error for the whole product; lib/api/handler.ts maps it to HTTP in one place. 4xx bodies name
// the field and the rule; anything else becomes a generic 500 whose details go to the server log only.

export type ErrorCode =
  | "bad_request"
  | "invalid_json"
  | "validation_failed"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "gone"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "bad_gateway"
  | "gateway_timeout"
  | "misconfigured"
  | "internal";

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  invalid_json: 400,
  validation_failed: 422,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  /** a record that left dead_letter for the archive: its timeline and lookup still answer */
  gone: 410,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  bad_gateway: 502,
  /** work handed to a worker or another server did not answer in time; it goes on there */
  gateway_timeout: 504,
  /** the server lacks a setting this request needs (a secret production must be given): the operator's to fix */
  misconfigured: 503,
  internal: 500,
};

export interface FieldIssue {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly issues: FieldIssue[];
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, opts: { issues?: FieldIssue[]; details?: Record<string, unknown> } = {}) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.issues = opts.issues ?? [];
    this.details = opts.details;
  }

  get status(): number {
    return STATUS[this.code];
  }

  toJSON(): Record<string, unknown> {
    return {
      error: { code: this.code, message: this.message, issues: this.issues, ...this.details },
    };
  }
}

export function zodIssues(error: z.ZodError, prefix = ""): FieldIssue[] {
  const at = (path: PropertyKey[]) => [prefix, ...path.map(String)].filter(Boolean).join(".") || "(root)";
  // An unknown key is named by its own path (filter.sourcee), not its object's: a typo is the field to fix.
  return error.issues.flatMap((i) =>
    i.code === "unrecognized_keys"
      ? i.keys.map((key) => ({ path: at([...i.path, key]), message: "is not a recognized field" }))
      : [{ path: at(i.path), message: i.message }],
  );
}

/** A 400 about the request body as a whole (nested too deep, not UTF-8); `detail` goes in the message only. */
export function bodyError(issue: string, detail: string = issue): AppError {
  return new AppError("invalid_json", `body: ${detail}`, { issues: [{ path: "body", message: issue }] });
}

/** The body's bytes are not UTF-8 (they would otherwise be replaced by U+FFFD and stored changed). */
export const notUtf8Body = (): AppError => bodyError("not valid UTF-8", "not valid UTF-8 text (sent as Latin-1?)");

/** A 422 naming one field, e.g. what lib/json/storable.ts finds. */
export function issueError(issue: FieldIssue): AppError {
  return new AppError("validation_failed", `${issue.path}: ${issue.message}`, { issues: [issue] });
}

export function validationError(where: string, error: z.ZodError, prefix = ""): AppError {
  const issues = zodIssues(error, prefix);
  const first = issues[0];
  return new AppError("validation_failed", first ? `${where}: ${first.path}: ${first.message}` : `${where} is invalid`, {
    issues,
  });
}
