import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { UNSCOPED } from "../../lib/scope/record-scope";
import type { Role } from "../../lib/auth/permissions";
import { ingest, spatialEnvelope } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Notes on a record (permissions, masking of the text, audit, mentions, the list's note filter, the timeline)
// and saved views (ownership, sharing, default, live counts, audit), through the route handlers.

setTestAuthEnv();

let db: Db;
const PAN = "4111111111111111";
const MASKED = "••••••••••••1111";
let recordA: string;
const users: Partial<Record<string, { id: string; email: string; token: string }>> = {};

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function as(who: string, role: Role, email?: string) {
  if (!users[who]) {
    const u = await makeUser(db, role, email ? { email } : {});
    users[who] = { id: u.id, email: u.email, token: await makeToken(db, u.id) };
  }
  return users[who];
}

async function call(
  who: string,
  role: Role,
  handler: Handler,
  path: string,
  init: { method?: string; body?: unknown; params?: Record<string, string> } = {},
): Promise<{ status: number; json: unknown; text: string }> {
  const u = await as(who, role);
  const res = await handler(
    new Request(`http://localhost${path}`, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${u.token}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
    { params: Promise.resolve(init.params ?? {}) },
  );
  const text = await res.text();
  return { status: res.status, text, json: text ? (JSON.parse(text) as unknown) : null };
}

const notesRoute = async () => (await import("../../app/api/dead-letters/[id]/notes/route")) as unknown as Record<string, Handler>;
const viewsRoute = async () => (await import("../../app/api/views/route")) as unknown as Record<string, Handler>;
const viewRoute = async () => (await import("../../app/api/views/[id]/route")) as unknown as Record<string, Handler>;
const defaultRoute = async () => (await import("../../app/api/views/default/route")) as unknown as Record<string, Handler>;

beforeAll(async () => {
  db = await testDb();
  [recordA] = (await ingest(db, [
    spatialEnvelope({ key: "note-a", observedAt: 100, featureId: "fa" }),
    spatialEnvelope({ key: "note-b", observedAt: 200, featureId: "fb" }),
  ])) as [string, string];
  await as("ann", "analyst", "ann.lee@test.local");
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("notes on a record", () => {
  it("analysts, supervisors and admins write; auditors read but do not write; producers neither", async () => {
    const { GET, POST } = await notesRoute();
    const post = (who: string, role: Role, text: string) =>
      call(who, role, POST!, `/api/dead-letters/${recordA}/notes`, { method: "POST", body: { text }, params: { id: recordA! } });
    expect((await post("bob", "analyst", `customer card ${PAN} refunded, @ann.lee please check <b>this</b>`)).status).toBe(201);
    expect((await post("sue", "supervisor", "seen")).status).toBe(201);
    expect((await post("adm", "admin", "ok")).status).toBe(201);
    expect((await post("aud", "auditor", "no")).status).toBe(403);
    expect((await post("pro", "producer", "no")).status).toBe(403);
    expect((await call("pro", "producer", GET!, `/api/dead-letters/${recordA}/notes`, { params: { id: recordA! } })).status).toBe(403);
    const read = await call("aud", "auditor", GET!, `/api/dead-letters/${recordA}/notes`, { params: { id: recordA! } });
    expect(read.status).toBe(200);
    expect((read.json as { items: unknown[] }).items).toHaveLength(3);
  });

  it("refuses empty, too long and unknown fields naming the field; 404 for a record that does not exist", async () => {
    const { POST } = await notesRoute();
    const post = (body: unknown, id = recordA!) =>
      call("bob", "analyst", POST!, `/api/dead-letters/${id}/notes`, { method: "POST", body, params: { id } });
    const empty = await post({ text: "   " });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain("text");
    expect((await post({ text: "x".repeat(2001) })).status).toBe(422);
    expect((await post({ text: "x", html: "<b>" })).status).toBe(422);
    expect((await post({ text: "x" }, "999999")).status).toBe(404);
  });

  it("stores the text as typed, masks it for every reader by default and gives it in clear to an auditor who asks (audited)", async () => {
    const { GET } = await notesRoute();
    const { rows } = await db.pool.query<{ text: string }>("SELECT text FROM dead_letter_note ORDER BY id LIMIT 1");
    expect(rows[0]!.text).toContain(PAN);
    for (const role of ["analyst", "auditor"] as const) {
      const r = await call(`r-${role}`, role, GET!, `/api/dead-letters/${recordA}/notes`, { params: { id: recordA! } });
      expect(r.text).not.toContain(PAN);
      expect((r.json as { items: { text: string }[] }).items[0]!.text).toContain(MASKED);
    }
    expect(
      (await call("r-analyst", "analyst", GET!, `/api/dead-letters/${recordA}/notes?unmask=1`, { params: { id: recordA! } })).status,
    ).toBe(403);
    const clear = await call("aud", "auditor", GET!, `/api/dead-letters/${recordA}/notes?unmask=1`, { params: { id: recordA! } });
    expect(clear.text).toContain(PAN);
    const audit = await db.pool.query("SELECT 1 FROM audit_event WHERE action = 'dead_letter.unmasked_read' AND after->>'view' = 'notes'");
    expect(audit.rowCount).toBe(1);
  });

  it("audits the note's creation with its text masked, and shows it in the timeline", async () => {
    const { rows } = await db.pool.query<{ after: { text: string; mentions: string[] }; actor_email: string }>(
      "SELECT after, actor_email FROM audit_event WHERE action = 'dead_letter.note_added' AND target_id = $1 ORDER BY id",
      [recordA],
    );
    expect(rows).toHaveLength(3);
    expect(JSON.stringify(rows)).not.toContain(PAN);
    expect(rows[0]!.after.text).toContain(MASKED);
    expect(rows[0]!.after.mentions).toEqual(["ann.lee@test.local"]);
    const timeline = (await import("../../app/api/dead-letters/[id]/timeline/route")).GET as unknown as Handler;
    const t = await call("r-analyst", "analyst", timeline, `/api/dead-letters/${recordA}/timeline`, { params: { id: recordA! } });
    const notes = (t.json as { events: { kind: string; summary: string }[] }).events.filter((e) => e.kind === "note");
    expect(notes).toHaveLength(3);
    expect(notes[0]!.summary).toContain(`card ${MASKED} refunded`);
  });

  it("resolves @handles to users and lists the mentioned user's mentions", async () => {
    const { GET } = await notesRoute();
    const r = await call("bob", "analyst", GET!, `/api/dead-letters/${recordA}/notes`, { params: { id: recordA! } });
    const first = (r.json as { items: { mentions: { email: string; handle: string }[] }[] }).items[0]!;
    expect(first.mentions).toEqual([expect.objectContaining({ email: "ann.lee@test.local", handle: "ann.lee" })]);
    const mentions = (await import("../../app/api/notes/mentions/route")).GET as unknown as Handler;
    const ann = await call("ann", "analyst", mentions, "/api/notes/mentions");
    expect(ann.json).toMatchObject({ count: 1, items: [{ deadLetterId: recordA }] });
    expect((await call("bob", "analyst", mentions, "/api/notes/mentions")).json).toMatchObject({ count: 0, items: [] });
  });

  it("resolves @mentions only to users who can read the record, and never lists the e-mails of other roles", async () => {
    const { GET, POST } = await notesRoute();
    const producer = await as("pat", "producer", "pat.doe@test.local");
    const res = await call("bob", "analyst", POST!, `/api/dead-letters/${recordA}/notes`, {
      method: "POST",
      body: { text: "@pat.doe sent it again, @ann.lee see above" },
      params: { id: recordA! },
    });
    expect(res.status).toBe(201);
    expect((res.json as { mentions: { email: string }[] }).mentions.map((m) => m.email)).toEqual(["ann.lee@test.local"]);
    expect(res.text).not.toContain("pat.doe@test.local");
    const stored = await db.pool.query<{ id: string; mentions: string[] }>(
      "SELECT id::text AS id, mentions FROM dead_letter_note ORDER BY id DESC LIMIT 1",
    );
    expect(stored.rows[0]!.mentions).not.toContain(producer!.id);
    const { rows } = await db.pool.query<{ after: { mentions: string[] } }>(
      "SELECT after FROM audit_event WHERE action = 'dead_letter.note_added' ORDER BY id DESC LIMIT 1",
    );
    expect(rows[0]!.after.mentions).toEqual(["ann.lee@test.local"]);
    // A note stored with such a mention (written before the rule): its answers still do not name the producer.
    await db.pool.query("UPDATE dead_letter_note SET mentions = mentions || $2::text WHERE id = $1", [stored.rows[0]!.id, producer!.id]);
    for (const role of ["analyst", "auditor", "supervisor"] as const) {
      const read = await call(`m-${role}`, role, GET!, `/api/dead-letters/${recordA}/notes`, { params: { id: recordA! } });
      expect(read.status).toBe(200);
      expect(read.text).toContain("ann.lee@test.local");
      expect(read.text).not.toContain("pat.doe@test.local");
    }
    const mentions = (await import("../../app/api/notes/mentions/route")).GET as unknown as Handler;
    const ann = await call("ann", "analyst", mentions, "/api/notes/mentions");
    expect(ann.text).not.toContain("pat.doe@test.local");
    await db.pool.query("DELETE FROM dead_letter_note WHERE id = $1", [stored.rows[0]!.id]);
  });

  it("the list's note filter finds records by their notes' text, any case, and the count agrees", async () => {
    const list = (await import("../../app/api/dead-letters/route")).GET as unknown as Handler;
    const facets = (await import("../../app/api/dead-letters/facets/route")).GET as unknown as Handler;
    const page = await call("bob", "analyst", list, "/api/dead-letters?note=REFUNDED");
    expect((page.json as { items: { id: string }[] }).items.map((i) => i.id)).toEqual([recordA]);
    expect((await call("bob", "analyst", facets, "/api/dead-letters/facets?note=REFUNDED")).json).toMatchObject({ total: 1 });
    expect((await call("bob", "analyst", list, "/api/dead-letters?note=nothing-like-this")).json).toMatchObject({ items: [] });
    // LIKE's wildcards are literal
    expect((await call("bob", "analyst", list, "/api/dead-letters?note=%25%25%25")).json).toMatchObject({ items: [] });
    // shorter than a trigram: refused, not a scan of every note
    const short = await call("bob", "analyst", list, "/api/dead-letters?note=re");
    expect(short.status).toBe(422);
    expect(short.text).toContain("note");
  });
});

describe("saved views", () => {
  let personal: string;
  let shared: string;

  it("saves a view with its filter in canonical form, personal or shared, audited", async () => {
    const { POST } = await viewsRoute();
    const a = await call("bob", "analyst", POST!, "/api/views", {
      method: "POST",
      body: { name: "Mine", filter: "?status=pending&cursor=x&kind=spatial" },
    });
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({
      name: "Mine",
      filter: "kind=spatial&status=pending",
      shared: false,
      sort: "desc",
      columns: [],
      editable: true,
    });
    personal = (a.json as { id: string }).id;
    const b = await call("bob", "analyst", POST!, "/api/views", {
      method: "POST",
      body: { name: "Refunds", shared: true, filter: "note=refund" },
    });
    shared = (b.json as { id: string }).id;
    const dup = await call("bob", "analyst", POST!, "/api/views", { method: "POST", body: { name: "Mine", filter: "" } });
    expect(dup.status).toBe(409);
    expect(dup.text).toContain("name");
    const bad = await call("bob", "analyst", POST!, "/api/views", { method: "POST", body: { name: "Bad", filter: "status=nope" } });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("filter");
    const audit = await db.pool.query("SELECT action FROM audit_event WHERE target_type = 'saved_view' ORDER BY id");
    expect(audit.rows.map((r: { action: string }) => r.action)).toEqual(["saved_view.created", "saved_view.created"]);
  });

  it("others see shared views, not personal ones, and may not change them; an admin may change a shared one", async () => {
    const { GET } = await viewsRoute();
    const { PATCH, DELETE } = await viewRoute();
    const seen = (await call("ann", "analyst", GET!, "/api/views")).json as { items: { id: string; editable: boolean }[] };
    expect(seen.items.map((v) => v.id)).toEqual([shared]);
    expect(seen.items[0]!.editable).toBe(false);
    expect(
      (await call("ann", "analyst", PATCH!, `/api/views/${shared}`, { method: "PATCH", body: { name: "x" }, params: { id: shared } }))
        .status,
    ).toBe(403);
    expect((await call("ann", "analyst", DELETE!, `/api/views/${personal}`, { method: "DELETE", params: { id: personal } })).status).toBe(
      404,
    );
    const renamed = await call("adm", "admin", PATCH!, `/api/views/${shared}`, {
      method: "PATCH",
      body: { name: "Refund notes" },
      params: { id: shared },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ name: "Refund notes", shared: true });
    expect(
      (await call("adm", "admin", PATCH!, `/api/views/${personal}`, { method: "PATCH", body: { name: "x" }, params: { id: personal } }))
        .status,
    ).toBe(404);
  });

  it("gives live counts: the list's count for each view's filter", async () => {
    const { GET } = await viewsRoute();
    const r = (await call("bob", "analyst", GET!, "/api/views?counts=1")).json as { items: { name: string; count: { total: number } }[] };
    expect(Object.fromEntries(r.items.map((v) => [v.name, v.count.total]))).toEqual({ Mine: 2, "Refund notes": 1 });
  });

  it("sets a default view per user; unsharing drops others' default on it; all audited", async () => {
    const { PUT } = await defaultRoute();
    const { PATCH, DELETE } = await viewRoute();
    const { defaultViewQuery } = await import("../../lib/dead-letters/views/saved-views");
    expect((await call("ann", "analyst", PUT!, "/api/views/default", { method: "PUT", body: { viewId: personal } })).status).toBe(404);
    expect((await call("ann", "analyst", PUT!, "/api/views/default", { method: "PUT", body: { viewId: shared } })).status).toBe(200);
    expect(await defaultViewQuery(db.pool, { userId: users.ann!.id, role: "analyst", scope: UNSCOPED })).toBe("note=refund");
    const unshare = await call("bob", "analyst", PATCH!, `/api/views/${shared}`, {
      method: "PATCH",
      body: { shared: false },
      params: { id: shared },
    });
    expect(unshare.status).toBe(200);
    expect(await defaultViewQuery(db.pool, { userId: users.ann!.id, role: "analyst", scope: UNSCOPED })).toBeNull();
    expect((await call("bob", "analyst", DELETE!, `/api/views/${shared}`, { method: "DELETE", params: { id: shared } })).status).toBe(200);
    const audit = await db.pool.query<{ action: string }>("SELECT action FROM audit_event WHERE action LIKE 'saved_view.%' ORDER BY id");
    expect(audit.rows.map((r) => r.action).slice(2)).toEqual([
      "saved_view.updated",
      "saved_view.default_set",
      "saved_view.unshared",
      "saved_view.deleted",
    ]);
  });
});

describe("saved views' columns", () => {
  it("stores a view's columns in order; an unknown or repeated column is a 422 naming columns; the default view opens with them", async () => {
    const { POST } = await viewsRoute();
    const { PATCH, DELETE } = await viewRoute();
    const { PUT } = await defaultRoute();
    const { defaultViewQuery } = await import("../../lib/dead-letters/views/saved-views");
    const made = await call("bob", "analyst", POST!, "/api/views", {
      method: "POST",
      body: { name: "Narrow", filter: "status=pending", columns: ["status", "reason", "kind"] },
    });
    expect(made.status).toBe(201);
    const id = (made.json as { id: string; columns: string[] }).id;
    expect((made.json as { columns: string[] }).columns).toEqual(["status", "reason", "kind"]);
    for (const columns of [["reason", "payload"], ["reason", "reason"], [""]]) {
      const bad = await call("bob", "analyst", POST!, "/api/views", { method: "POST", body: { name: "Bad cols", filter: "", columns } });
      expect(bad.status, JSON.stringify(columns)).toBe(422);
      expect(bad.text).toContain("columns");
    }
    const badPatch = await call("bob", "analyst", PATCH!, `/api/views/${id}`, {
      method: "PATCH",
      body: { columns: ["notAColumn"] },
      params: { id },
    });
    expect(badPatch.status).toBe(422);
    expect(badPatch.text).toContain("columns");
    expect(badPatch.text).toContain("notAColumn");
    const patched = await call("bob", "analyst", PATCH!, `/api/views/${id}`, {
      method: "PATCH",
      body: { columns: ["observedAt", "reason"] },
      params: { id },
    });
    expect((patched.json as { columns: string[] }).columns).toEqual(["observedAt", "reason"]);
    expect((await call("bob", "analyst", PUT!, "/api/views/default", { method: "PUT", body: { viewId: id } })).status).toBe(200);
    expect(await defaultViewQuery(db.pool, { userId: users.bob!.id, role: "analyst", scope: UNSCOPED })).toBe(
      "status=pending&cols=observedAt,reason",
    );
    expect((await call("bob", "analyst", PUT!, "/api/views/default", { method: "PUT", body: { viewId: null } })).status).toBe(200);
    expect((await call("bob", "analyst", DELETE!, `/api/views/${id}`, { method: "DELETE", params: { id } })).status).toBe(200);
  });
});
