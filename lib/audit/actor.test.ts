import { describe, expect, it } from "vitest";
import { auditActor, SYSTEM_ACTOR, type Actor } from "./actor";
import { prepareAudit } from "./append";

const analyst: Actor = { id: "u1", email: "a@x", role: "analyst" };
const now = new Date("2026-12-01T00:00:00Z");

describe("auditActor", () => {
  it("maps an actor to the event's actor columns", () => {
    expect(auditActor(analyst)).toStrictEqual({ actorId: "u1", actorEmail: "a@x", actorRole: "analyst" });
    expect(auditActor(SYSTEM_ACTOR)).toStrictEqual({ actorId: null, actorEmail: "system", actorRole: "system" });
  });

  it("adds the request id only when one is passed, null included", () => {
    expect(auditActor(analyst, "r1")).toStrictEqual({ actorId: "u1", actorEmail: "a@x", actorRole: "analyst", requestId: "r1" });
    expect(auditActor(analyst, null)).toStrictEqual({ actorId: "u1", actorEmail: "a@x", actorRole: "analyst", requestId: null });
    expect("requestId" in auditActor(analyst)).toBe(false);
    expect("requestId" in auditActor(analyst, undefined)).toBe(false);
  });

  it("writes the event the hand-spread actor fields wrote", () => {
    const event = { action: "user.created", targetType: "user", targetId: "u2" };
    const spread = (requestId?: string | null) =>
      prepareAudit(
        [
          {
            actorId: analyst.id,
            actorEmail: analyst.email,
            actorRole: analyst.role,
            ...(requestId === undefined ? {} : { requestId }),
            ...event,
          },
        ],
        now,
      );
    for (const requestId of ["r1", null, undefined]) {
      expect(prepareAudit([{ ...auditActor(analyst, requestId), ...event }], now)).toStrictEqual(spread(requestId));
    }
    // An absent request id is stored as null, as before.
    expect(prepareAudit([{ ...auditActor(analyst), ...event }], now)).toStrictEqual(
      prepareAudit([{ ...auditActor(analyst, null), ...event }], now),
    );
  });
});
