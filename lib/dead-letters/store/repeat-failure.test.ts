import { describe, expect, it } from "vitest";
import { applyRepeatFailure, decideKnownKey, MAX_REPLAYS, type KnownKeyState, type RepeatState } from "./repeat-failure";

const at = new Date("2026-01-01T00:00:00Z");
const afc: RepeatState = {
  kind: "afc",
  failureCount: 1,
  replayCount: 0,
  failureClass: "transient_schema",
  classReason: null,
  status: "pending",
};

describe("applyRepeatFailure", () => {
  it("counts AFC failures and turns poison when retries reach the budget", () => {
    const second = applyRepeatFailure(afc, { reason: "r2", at });
    expect(second).toMatchObject({ failureCount: 2, failureClass: "transient_schema", status: "pending", reason: "r2" });
    const third = applyRepeatFailure(second, { reason: "r3", at });
    expect(third.failureClass).toBe("transient_schema");
    const fourth = applyRepeatFailure(third, {
      reason: "fare_amount_cents: Expected integer, received string; battery_pct: Unrecognized key",
      at,
    });
    expect(fourth).toMatchObject({
      failureCount: 4,
      failureClass: "poison",
      classReason: "exhausted retries: 2 errors",
      status: "quarantined",
      reason: "exhausted retries: 2 errors",
    });
  });

  it("honours a smaller budget", () => {
    expect(applyRepeatFailure(afc, { reason: "again", at }, 1)).toMatchObject({
      failureClass: "poison",
      classReason: "exhausted retries: 1 errors",
    });
  });

  it("keeps poison terminal and keeps a replayed record's status", () => {
    const poison: RepeatState = { ...afc, failureClass: "poison", classReason: "missing event_id", status: "quarantined" };
    expect(applyRepeatFailure(poison, { reason: "x", at })).toMatchObject({ classReason: "missing event_id", reason: "x" });
    const replayed: RepeatState = { ...afc, status: "replayed" };
    expect(applyRepeatFailure(replayed, { reason: "x", at }).status).toBe("replayed");
  });

  it("makes a spatial record poison once replayed MAX_REPLAYS times", () => {
    const spatial: RepeatState = { ...afc, kind: "spatial", failureClass: "transient" };
    expect(applyRepeatFailure(spatial, { reason: "503", at, replayCount: 2 }).failureClass).toBe("transient");
    expect(applyRepeatFailure(spatial, { reason: "503", at, replayCount: 3 })).toMatchObject({
      failureClass: "poison",
      classReason: "replayed 3 times",
      status: "quarantined",
    });
  });
});

describe("decideKnownKey: what a stored key's arrival does", () => {
  const spatial: KnownKeyState = {
    kind: "spatial",
    failureCount: 1,
    replayCount: 1,
    failureClass: "transient",
    classReason: null,
    status: "replayed",
    notedFailures: 0,
  };
  const own = { reason: "consumer rejected again", at, replayCount: 0, ownSender: true };
  const other = { ...own, reason: "HTTP 500 from B", replayCount: 3, ownSender: false };

  it("brings a replayed record back to triage, transient while replays are left, from any sender", () => {
    for (const arrival of [own, other]) {
      const d = decideKnownKey(spatial, arrival);
      expect(d.effect).toBe("failed_again");
      expect(d.next).toMatchObject({ status: "pending", failureClass: "transient", failureCount: 2, reason: arrival.reason });
    }
  });

  it("takes an approved record whose replay is in flight as replayed: its consumer's rejection can arrive first", () => {
    const inFlight: KnownKeyState = { ...spatial, status: "approved", replaying: true };
    for (const arrival of [own, other]) {
      expect(decideKnownKey(inFlight, arrival)).toMatchObject({
        effect: "failed_again",
        next: { status: "pending", reason: arrival.reason },
      });
    }
    // Only an approved record: one an analyst reopened or quarantined meanwhile stays where they put it.
    expect(decideKnownKey({ ...inFlight, status: "quarantined" }, own).effect).toBe("repeat");
  });

  it("makes a replayed record poison (quarantined) past the replay limit", () => {
    const d = decideKnownKey({ ...spatial, replayCount: MAX_REPLAYS }, own);
    expect(d).toMatchObject({
      effect: "failed_again",
      next: { status: "quarantined", failureClass: "poison", classReason: "replayed 3 times" },
    });
  });

  it("ignores the replay count another sender reports, also after a replay", () => {
    expect(decideKnownKey(spatial, other).next).toMatchObject({ failureClass: "transient", replayCount: 1 });
    expect(decideKnownKey(spatial, { ...own, replayCount: 3 }).next).toMatchObject({ failureClass: "poison", status: "quarantined" });
  });

  it("decides an AFC record's class again with its retry budget", () => {
    const afcReplayed: KnownKeyState = { ...spatial, kind: "afc", failureClass: "transient_schema", failureCount: 2 };
    expect(decideKnownKey(afcReplayed, own).next).toMatchObject({ status: "pending", failureClass: "transient_schema" });
    expect(decideKnownKey({ ...afcReplayed, failureCount: 3 }, own).next).toMatchObject({ status: "quarantined", failureClass: "poison" });
  });

  it("keeps a re-send by the record's own sender before a replay as today's one more failure", () => {
    const pending: KnownKeyState = { ...spatial, status: "approved", replayCount: 0 };
    expect(decideKnownKey(pending, own)).toMatchObject({ effect: "repeat", next: { status: "approved", failureCount: 2 } });
    expect(decideKnownKey(pending, { ...own, replayCount: 3 })).toMatchObject({
      effect: "repeat",
      next: { status: "quarantined", failureClass: "poison" },
    });
  });

  it("changes neither status, class, reason nor replay count on another sender's re-send before a replay", () => {
    const approved: KnownKeyState = { ...spatial, status: "approved", replayCount: 0 };
    const d = decideKnownKey(approved, other);
    expect(d.effect).toBe("noted");
    expect(d.next).toMatchObject({ status: "approved", failureClass: "transient", classReason: null, replayCount: 0, failureCount: 2 });
  });

  it("spends no retry budget on noted failures", () => {
    const afc: KnownKeyState = { ...spatial, kind: "afc", status: "pending", failureClass: "transient_schema", replayCount: 0 };
    // three other senders' re-sends were noted: the owner's next re-send is its first retry, not its fourth
    const d = decideKnownKey({ ...afc, failureCount: 4, notedFailures: 3 }, own);
    expect(d.next).toMatchObject({ failureClass: "transient_schema", status: "pending", failureCount: 5 });
  });
});
