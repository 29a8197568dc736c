import { POST as approvePost } from "../../app/api/replays/[id]/approve/route";
import { POST as cancelPost } from "../../app/api/replays/[id]/cancel/route";
import { GET as itemsGet } from "../../app/api/replays/[id]/items/route";
import { POST as pausePost } from "../../app/api/replays/[id]/pause/route";
import { GET as rateGet } from "../../app/api/replays/[id]/rate/route";
import { POST as resumePost } from "../../app/api/replays/[id]/resume/route";
import { GET as batchGet } from "../../app/api/replays/[id]/route";
import { POST as startPost } from "../../app/api/replays/[id]/start/route";
import { GET as listGet, POST as createPost } from "../../app/api/replays/route";
import type { RouteHandler } from "../../lib/api/handler";
import type { BatchAction } from "../../lib/replay/batch/batch-states";

// Calls the replay API's route handlers in-process, as the browser or a script would (bearer token).

const ACTIONS: Record<BatchAction, RouteHandler> = {
  approve: approvePost,
  start: startPost,
  pause: pausePost,
  resume: resumePost,
  cancel: cancelPost,
};

export interface Answer {
  status: number;
  body: unknown;
}

async function call(
  handler: RouteHandler,
  token: string,
  path: string,
  init: { method: string; body?: unknown; params?: Record<string, string> },
): Promise<Answer> {
  const res = await handler(
    new Request(`http://localhost${path}`, {
      method: init.method,
      headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
    { params: Promise.resolve(init.params ?? {}) },
  );
  return { status: res.status, body: await res.json() };
}

export const create = (token: string, body: unknown) => call(createPost, token, "/api/replays", { method: "POST", body });
export const list = (token: string) => call(listGet, token, "/api/replays", { method: "GET" });
export const get = (token: string, id: string) => call(batchGet, token, `/api/replays/${id}`, { method: "GET", params: { id } });
export const act = (token: string, id: string, action: BatchAction) =>
  call(ACTIONS[action], token, `/api/replays/${id}/${action}`, { method: "POST", params: { id } });
export const items = (token: string, id: string, query = "") =>
  call(itemsGet, token, `/api/replays/${id}/items${query}`, { method: "GET", params: { id } });
export const rate = (token: string, id: string) => call(rateGet, token, `/api/replays/${id}/rate`, { method: "GET", params: { id } });
