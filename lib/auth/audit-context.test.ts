import { describe, expect, it } from "vitest";
import { actorFields, unverifiedActor, userActor } from "./audit-context";

describe("userActor", () => {
  it("keeps a role Redrive knows and records any other as null", () => {
    expect(userActor({ id: "u1", email: "a@x", role: "supervisor" })).toStrictEqual({ id: "u1", email: "a@x", role: "supervisor" });
    expect(userActor({ id: "u1", email: "a@x", role: "owner" })).toStrictEqual({ id: "u1", email: "a@x", role: null });
    expect(userActor({ id: "u1", email: null })).toStrictEqual({ id: "u1", email: null, role: null });
  });
});

describe("unverifiedActor", () => {
  it("is known by the e-mail given, with no id and no role", () => {
    expect(unverifiedActor("who@x")).toStrictEqual({ id: null, email: "who@x", role: null });
    expect(unverifiedActor(null)).toStrictEqual({ id: null, email: null, role: null });
  });
});

describe("actorFields", () => {
  const actor = { id: "u1", email: "a@x", role: "admin" };
  it("always carries the request id, null when the context has none", () => {
    expect(actorFields({ actor, now: new Date(), requestId: "r1" })).toStrictEqual({
      actorId: "u1",
      actorEmail: "a@x",
      actorRole: "admin",
      requestId: "r1",
    });
    expect(actorFields({ actor, now: new Date() })).toStrictEqual({
      actorId: "u1",
      actorEmail: "a@x",
      actorRole: "admin",
      requestId: null,
    });
  });
});
