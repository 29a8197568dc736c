import type { StreamEntry } from "./origin";

// node-redis types some stream replies loosely (XREADGROUP's messages are `any`) and script replies not at all,
// so they are checked here before anything trusts their shape.

export class UnexpectedReplyError extends Error {
  override readonly name = "UnexpectedReplyError";
}

function text(v: unknown, what: string): string {
  if (typeof v === "string") return v;
  if (Buffer.isBuffer(v)) return v.toString("utf8");
  throw new UnexpectedReplyError(`${what}: expected a string, got ${typeof v}`);
}

function bytes(v: unknown, what: string): Buffer {
  if (Buffer.isBuffer(v)) return v;
  if (typeof v === "string") return Buffer.from(v, "utf8");
  throw new UnexpectedReplyError(`${what}: expected bytes, got ${typeof v}`);
}

function fieldList(v: unknown, what: string): Buffer[] | null {
  if (v === null || v === undefined) return null;
  if (!Array.isArray(v) || v.length % 2 !== 0) throw new UnexpectedReplyError(`${what}: expected a flat field/value list`);
  return v.map((x) => bytes(x, what));
}

/** An entry as node-redis transforms it (`{ id, message }`) or as Lua returns it (`[id, fields]`). */
export function entryFrom(raw: unknown, what: string): StreamEntry {
  if (Array.isArray(raw) && raw.length === 2) return { id: text(raw[0], `${what} id`), fields: fieldList(raw[1], what) };
  if (typeof raw === "object" && raw !== null && "id" in raw && "message" in raw) {
    return { id: text(raw.id, `${what} id`), fields: fieldList(raw.message, what) };
  }
  throw new UnexpectedReplyError(`${what}: expected a stream entry`);
}

/** XREADGROUP on one stream: null when nothing arrived, else `[{ name, messages }]`. */
export function readGroupEntries(reply: unknown): StreamEntry[] {
  if (reply === null) return [];
  if (!Array.isArray(reply)) throw new UnexpectedReplyError("XREADGROUP: expected a list of streams");
  return reply.flatMap((s: unknown) => {
    if (typeof s !== "object" || s === null || !("messages" in s) || !Array.isArray(s.messages)) {
      throw new UnexpectedReplyError("XREADGROUP: expected { name, messages }");
    }
    return s.messages.map((m: unknown) => entryFrom(m, "XREADGROUP entry"));
  });
}

export interface ClaimReply {
  claimed: StreamEntry[];
  gone: string[];
}

export function claimReply(reply: unknown): ClaimReply {
  if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[0]) || !Array.isArray(reply[1])) {
    throw new UnexpectedReplyError("claim script: expected { claimed, gone }");
  }
  return {
    claimed: reply[0].map((e: unknown) => entryFrom(e, "claimed entry")),
    gone: reply[1].map((id: unknown) => text(id, "gone id")),
  };
}

export function integerReply(reply: unknown, what: string): number {
  if (typeof reply === "number" && Number.isInteger(reply)) return reply;
  throw new UnexpectedReplyError(`${what}: expected an integer, got ${typeof reply}`);
}
