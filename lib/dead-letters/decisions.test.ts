import { describe, expect, it } from "vitest";
import { actionsFrom, approveBlocker, availableActions, decide, reopenedClass, type TriageSubject } from "./decisions";
import type { DeadLetterStatus } from "../vocabulary/record";

const subject = (status: DeadLetterStatus, failureClass: TriageSubject["failureClass"] = "transient"): TriageSubject => ({
  status,
  failureClass,
  classReason: failureClass === "poison" ? "missing idempotency key" : null,
});

describe("triage state machine", () => {
  it.each([
    ["pending", "approve", "approved"],
    ["pending", "quarantine", "quarantined"],
    ["pending", "edit", "pending"],
    ["approved", "reopen", "pending"],
    ["approved", "quarantine", "quarantined"],
    ["approved", "edit", "pending"],
    ["quarantined", "reopen", "pending"],
    ["quarantined", "edit", "quarantined"],
  ] as const)("%s --%s--> %s", (from, action, to) => {
    expect(decide(subject(from), action, { reason: "checked" })).toEqual({ ok: true, next: to });
  });

  it.each([
    ["pending", "reopen"],
    ["approved", "approve"],
    ["quarantined", "approve"],
    ["quarantined", "quarantine"],
  ] as const)("refuses %s on a %s record as a conflict", (from, action) => {
    const d = decide(subject(from), action, { reason: "x" });
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect(d.code).toBe("conflict");
      expect(d.message).toMatch(new RegExp(`cannot ${action} an? ${from} record`));
    }
  });

  it("has no decision for final statuses", () => {
    for (const s of ["replayed", "purged"] as const) {
      expect(actionsFrom(s)).toEqual([]);
      const d = decide(subject(s), "edit");
      expect(d.ok === false && d.message).toContain("none — it is final");
    }
  });

  it("requires a non-blank reason to quarantine", () => {
    expect(decide(subject("pending"), "quarantine", { reason: "  " })).toMatchObject({
      ok: false,
      code: "validation_failed",
      field: "reason",
    });
    expect(decide(subject("pending"), "quarantine")).toMatchObject({ ok: false, field: "reason" });
    expect(decide(subject("pending"), "quarantine", { reason: "x".repeat(1001) })).toMatchObject({ ok: false, field: "reason" });
  });

  it("refuses to approve poison, naming the class reason, but allows the other decisions", () => {
    const poison = subject("pending", "poison");
    const d = decide(poison, "approve");
    expect(d).toMatchObject({ ok: false, code: "conflict" });
    expect(d.ok === false && d.message).toContain("missing idempotency key");
    expect(decide(poison, "edit")).toEqual({ ok: true, next: "pending" });
    expect(decide(poison, "quarantine", { reason: "bad" })).toEqual({ ok: true, next: "quarantined" });
    expect(approveBlocker(subject("pending", "transient_schema"))).toBeNull();
  });

  it("lists the UI's buttons with the reason a disabled one is disabled", () => {
    const list = availableActions(subject("quarantined", "poison"));
    expect(list.find((a) => a.action === "reopen")?.enabled).toBe(true);
    expect(list.find((a) => a.action === "approve")).toMatchObject({ enabled: false });
  });
});

describe("reopenedClass", () => {
  it("takes delivery poison (the replay gave up) back to the kind's transient class", () => {
    expect(reopenedClass("afc", { failureClass: "poison", classReason: "gave up after 5 attempts: HTTP 503" })).toEqual({
      failureClass: "transient_schema",
      classReason: "reopened after the replay gave up after 5 attempts: HTTP 503",
    });
    expect(
      reopenedClass("spatial", { failureClass: "poison", classReason: "gave up after 1 attempt: timed out after 10000 ms" })?.failureClass,
    ).toBe("transient");
  });

  it("keeps poison about the record itself, and leaves other classes alone", () => {
    expect(reopenedClass("afc", { failureClass: "poison", classReason: "missing event_id" })).toBeNull();
    expect(reopenedClass("spatial", { failureClass: "poison", classReason: null })).toBeNull();
    expect(reopenedClass("afc", { failureClass: "transient_schema", classReason: "gave up after 5 attempts: x" })).toBeNull();
  });
});
