// JSON over fetch for client components: same-origin cookies, and a non-2xx answer thrown as HttpError
// carrying the API's message (defineRoute answers { error: { code, message } }; better-auth { code, message }).
// Client-safe: no server imports.

/** A non-2xx answer: its status, the API's message and the parsed body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown = null,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

const SESSION_ENDED = "Your session has ended: sign in again.";

export async function fetchJson<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? "GET",
    credentials: "same-origin",
    signal: init.signal,
    headers: init.body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  // The API's 401 speaks to API clients ("sign in or send Authorization: Bearer <token>"); to a page of this app
  // it means its session ended.
  if (!res.ok) throw new HttpError(res.status, res.status === 401 ? SESSION_ENDED : errorMessage(res.status, data), data);
  return data as T;
}

export function errorMessage(status: number, body: unknown): string {
  if (typeof body === "object" && body !== null) {
    const inner = "error" in body && typeof body.error === "object" && body.error !== null ? body.error : body;
    if ("message" in inner && typeof inner.message === "string" && inner.message) return inner.message;
  }
  if (status === 401) return SESSION_ENDED;
  if (status === 429) return "Too many attempts: wait a minute and try again.";
  return `Request failed (${status})`;
}
