import { createHash, createHmac } from "node:crypto";
import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import { auditHash, auditMac, GENESIS_HASH, KEY_ROTATED, verifyChain, type AuditContent, type StoredAuditEvent } from "./chain";
import { auditKey, auditKeyring, type AuditKey } from "./keys";

const SECRET_A = "a".repeat(40);
const SECRET_B = "b".repeat(40);
const A = auditKey(SECRET_A);
const B = auditKey(SECRET_B);

function content(i: number): AuditContent {
  return {
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    actorId: "u1",
    actorEmail: "a@x",
    actorRole: "admin",
    action: "user.created",
    targetType: "user",
    targetId: `t${i}`,
    before: null,
    after: { n: i, nested: { b: 1, a: [1, 2] } },
    diff: null,
    reason: null,
    requestId: null,
  };
}

/** Events as appendAudit writes them: `plan[i]` is the key of event i + 1 (null: unkeyed, as before keys). */
function chain(plan: (AuditKey | null)[], contents: (i: number) => AuditContent = content): StoredAuditEvent[] {
  const out: StoredAuditEvent[] = [];
  let prev = GENESIS_HASH;
  plan.forEach((key, i) => {
    const c = contents(i + 1);
    const hash = key ? auditMac(key, prev, c) : auditHash(prev, c);
    out.push({ ...c, id: String(i + 1), prevHash: prev, hash, keyId: key?.id ?? null });
    prev = hash;
  });
  return out;
}

const keyed = (n: number) => chain(Array.from({ length: n }, () => A));

/** What a database superuser can do without the key: recompute every hash from `from` on with the public SHA-256. */
function rechain(events: StoredAuditEvent[], from: number): StoredAuditEvent[] {
  const out = events.slice(0, from);
  let prev = from === 0 ? GENESIS_HASH : out[from - 1]!.hash;
  for (const e of events.slice(from)) {
    const hash = auditHash(prev, e);
    out.push({ ...e, prevHash: prev, hash, keyId: null });
    prev = hash;
  }
  return out;
}

describe("audit hash chain", () => {
  it("hashes exactly the canonical JSON of the whole content with prevHash, as events already stored were hashed", () => {
    const contents: AuditContent[] = [
      content(1),
      { ...content(2), actorId: null, actorEmail: null, actorRole: null, targetId: null, after: null },
      {
        ...content(3),
        action: "dead_letter.edited",
        before: { é: "ü\u2028", "\ud83d\ude00": [1e21, 0.1, -0, 1e-7] },
        after: { z: { y: null, x: true } },
        diff: [{ op: "replace", path: "/a~1b", value: "<img src=x>" }],
        reason: 'typo "quoted"\n',
        requestId: "req-1",
      },
    ];
    for (const c of contents) {
      const prevHash = createHash("sha256").update(c.at).digest("hex");
      const whole = canonicalize({ ...c, prevHash }) as string;
      expect(auditHash(prevHash, c)).toBe(createHash("sha256").update(whole).digest("hex"));
      // The keyed hash MACs the same text, prefixed with the key's id.
      expect(auditMac(A, prevHash, c)).toBe(
        createHmac("sha256", A.chain).update(`redrive-audit-v2\u0000${A.id}\u0000${whole}`).digest("hex"),
      );
    }
  });

  it("verifies events as read back from the table (id and hash present, jsonb key order lost)", () => {
    const events = keyed(5).map((e) => ({ ...e, after: { nested: { a: [1, 2], b: 1 }, n: (e.after as { n: number }).n } }));
    expect(verifyChain(events, auditKeyring(SECRET_A)).broken).toBeNull();
  });

  it("finds a changed event", () => {
    const events = keyed(5);
    events[2] = { ...events[2]!, actorRole: "supervisor" };
    expect(verifyChain(events, auditKeyring(SECRET_A)).broken).toMatchObject({
      id: "3",
      problem: expect.stringContaining("content does not match"),
    });
  });

  it("finds a removed event at the next one", () => {
    const events = keyed(5);
    events.splice(1, 1);
    expect(verifyChain(events, auditKeyring(SECRET_A)).broken).toMatchObject({ id: "3", problem: expect.stringContaining("prev_hash") });
  });

  it("continues from where a page ended (batched verification)", () => {
    const keys = auditKeyring(SECRET_A);
    const events = keyed(6);
    const first = verifyChain(events.slice(0, 3), keys);
    expect(first.broken).toBeNull();
    expect(verifyChain(events.slice(3), keys, first.at).broken).toBeNull();
    expect(verifyChain(events.slice(3), keys).broken).toMatchObject({ id: "4" });
  });
});

describe("the keyed chain against someone without the key", () => {
  it("refuses an edited event re-chained with the public hash: the re-chained events carry no MAC", () => {
    const events = keyed(5);
    events[2] = { ...events[2]!, actorRole: "supervisor" };
    expect(verifyChain(rechain(events, 2), auditKeyring(SECRET_A)).broken).toMatchObject({
      id: "3",
      problem: expect.stringContaining("carries no MAC but follows events MAC'd"),
    });
  });

  it("refuses a re-chain that keeps the key ids: the MACs do not match without the key", () => {
    const events = keyed(5);
    events[2] = { ...events[2]!, actorRole: "supervisor" };
    const forged = rechain(events, 2).map((e, i) => (i >= 2 ? { ...e, keyId: A.id } : e));
    expect(verifyChain(forged, auditKeyring(SECRET_A)).broken).toMatchObject({
      id: "3",
      problem: expect.stringContaining("content does not match"),
    });
  });

  it("refuses a chain MAC'd with another key, naming the key it needs", () => {
    expect(verifyChain(keyed(3), auditKeyring(SECRET_B)).broken).toMatchObject({
      id: "1",
      problem: expect.stringContaining(`MAC'd with key ${A.id}, which this verifier does not hold (it holds ${B.id})`),
    });
  });

  it("accepts unkeyed events before the first keyed one, and a keyed event anchors them", () => {
    const events = chain([null, null, A, A]);
    expect(verifyChain(events, auditKeyring(SECRET_A)).broken).toBeNull();
    // Rewriting the unkeyed prefix now breaks the first keyed event's MAC (its prev_hash is re-pointed too).
    const rewritten = rechain(
      events.map((e, i) => (i === 0 ? { ...e, reason: "rewritten" } : e)),
      0,
    );
    const resealed = [...rewritten.slice(0, 2), { ...events[2]!, prevHash: rewritten[1]!.hash }, events[3]!];
    expect(verifyChain(resealed, auditKeyring(SECRET_A)).broken).toMatchObject({
      id: "3",
      problem: expect.stringContaining("content does not match"),
    });
  });
});

describe("key rotation", () => {
  const rotation = (i: number): AuditContent =>
    i === 3
      ? { ...content(i), action: KEY_ROTATED, targetType: "audit_key", targetId: B.id, before: { keyId: A.id }, after: { keyId: B.id } }
      : content(i);

  it("verifies a rotation event MAC'd by the old key followed by events under the new one, with both keys held", () => {
    const events = chain([A, A, A, B, B], rotation);
    expect(verifyChain(events, auditKeyring(SECRET_B, [SECRET_A])).broken).toBeNull();
    expect(verifyChain(events, auditKeyring(SECRET_B)).broken).toMatchObject({
      id: "1",
      problem: expect.stringContaining("does not hold"),
    });
  });

  it("refuses a key change without a rotation event, and the old key continuing after the rotation", () => {
    const keys = auditKeyring(SECRET_B, [SECRET_A]);
    expect(verifyChain(chain([A, A, B]), keys).broken).toMatchObject({
      id: "3",
      problem: expect.stringContaining("without a rotation event"),
    });
    expect(verifyChain(chain([A, A, A, A], rotation), keys).broken).toMatchObject({
      id: "4",
      problem: expect.stringContaining(`rotated to key ${B.id}, but this one is MAC'd with ${A.id}`),
    });
    expect(verifyChain(chain([A, A, A, B, A], rotation), keys).broken).toMatchObject({
      id: "5",
      problem: expect.stringContaining("without a rotation event"),
    });
  });
});
