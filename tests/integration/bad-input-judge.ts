import type { Probe } from "./bad-input-probes";

// How tests/integration/bad-input.test.ts judges an answer to a probe: a 4xx in the API's error shape
// ({ error: { code, message, issues } }) naming the field, never a 5xx, and a 2xx only where the probe says why.

export interface Answer {
  status: number;
  text: string;
  requestId: string;
}

export interface ErrorBody {
  error?: { code?: unknown; message?: unknown; issues?: { path?: unknown; message?: unknown }[] };
  /** better-auth's own error body, which names no field */
  ownShape?: true;
}

/** Whether the error names one of `field`'s alternatives ("a|b") in an issue's path or the message. */
function namesField(body: ErrorBody, field: string): boolean {
  const paths = (body.error?.issues ?? []).map((i) => String(i.path));
  const message = String(body.error?.message).toLowerCase();
  return field.split("|").some((f) => {
    const inPath = paths.some((p) => p === f || p.split(/[.[\]]/).includes(f) || p.endsWith(`.${f}`) || p.startsWith(`${f}.`));
    const bodyWide = f === "body" && paths.some((p) => p === "(root)" || p === "body");
    return inPath || bodyWide || message.includes(f.toLowerCase());
  });
}

/** What is wrong with an answer to a probe, or null. */
export function judge(probe: Probe, a: Answer, errorShape: (text: string) => ErrorBody | string = strictShape): string | null {
  const head = `${a.status} ${a.text.slice(0, 300)}`;
  if (a.status >= 500) return `answered ${head}`;
  if (a.status < 400) {
    return probe.expect === "any" ? null : `took it: ${head}`;
  }
  const body = errorShape(a.text);
  if (typeof body === "string") return `${body}: ${head}`;
  if (probe.expect === "notFound" && a.status !== 404) return `expected 404, got ${head}`;
  if (a.status === 413 && !body.ownShape && !namesField(body, "body")) return `does not name the body: ${head}`;
  if (probe.expect === "refuse" && probe.field && !body.ownShape && [400, 422].includes(a.status) && !namesField(body, probe.field))
    return `does not name ${probe.field}: ${head}`;
  return null;
}

/**
 * POST /api/dead-letters answers a batch record by record (documented): a 200 whose every result is `rejected` with
 * errors naming the field is its refusal; a stored record (created, duplicate) is not.
 */
export function judgeIngest(probe: Probe, a: Answer): string | null {
  if (a.status !== 200 || probe.expect === "any") return judge(probe, a);
  const { results } = JSON.parse(a.text) as { results: { status: string; errors?: { path: string; message: string }[] }[] };
  const head = `${a.status} ${a.text.slice(0, 300)}`;
  if (!results.length || results.some((r) => r.status !== "rejected")) return `took it: ${head}`;
  const named = results.every((r) => namesField({ error: { message: "", issues: r.errors ?? [] } }, probe.field ?? "body"));
  return named ? null : `does not name ${probe.field}: ${head}`;
}

function strictShape(text: string): ErrorBody | string {
  let body: ErrorBody;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    return "not JSON";
  }
  if (typeof body.error?.code !== "string" || typeof body.error?.message !== "string") return "no error.code and error.message";
  return body;
}

/**
 * better-auth answers its own errors as `{ message, code }` (documented on its 400s in /api/openapi.json): its
 * messages name the rule ("Password too long", "Invalid password"), not always the field, and carry no issues.
 * Such an answer is judged on its status and shape; one in Redrive's own shape (its before-hook's) names the field.
 */
export function authShape(text: string): ErrorBody | string {
  let body: { message?: unknown; code?: unknown; error?: ErrorBody["error"] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return "not JSON";
  }
  if (body.error) return strictShape(text);
  if (typeof body.code !== "string" || typeof body.message !== "string") return "no code and message";
  return { error: { code: body.code, message: body.message, issues: [] }, ownShape: true };
}
