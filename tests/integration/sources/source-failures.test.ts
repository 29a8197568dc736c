import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import { AppError } from "../../../lib/errors/app-error";
import { evaluateAlerts } from "../../../lib/ops/alerts/evaluate";
import { startRuntime } from "../../../lib/runtime/runtime";
import { getSource, updateSource } from "../../../lib/sources/manage-sources";
import { CreateSourceBody } from "../../../lib/sources/source-schemas";
import { waitFor } from "../../replay/fixtures";
import { setTestAuthEnv, TEST_CTX } from "../auth-helpers";
import { testDb } from "../helpers";
import { addSource, pull } from "./origin-flow";

// A broker that is down or refuses the credentials is a state on the source — shown, retried with backoff,
// alertable — never a crash; a bad URL or option is refused naming the field.

setTestAuthEnv();

let db: Db;

beforeAll(async () => {
  db = await testDb();
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("sources that cannot work", () => {
  it("refuses a bad URL or option naming the field", () => {
    const bad = CreateSourceBody.safeParse({ name: "x", type: "rabbitmq", url: "http://host", kind: "spatial", options: { queue: "q" } });
    expect(bad.error?.issues.map((i) => i.path.join("."))).toEqual(["url"]);
    const opt = CreateSourceBody.safeParse({
      name: "x",
      type: "redis",
      url: "redis://h",
      kind: "afc",
      options: { stream: "s", group: "g", minIdleMs: -1 },
    });
    expect(opt.error?.issues.map((i) => i.path.join("."))).toEqual(["options.minIdleMs"]);
    const type = CreateSourceBody.safeParse({ name: "x", type: "mqtt", url: "x", kind: "afc", options: {} });
    expect(type.success).toBe(false);
  });

  it("a broker that is down: the source is added all the same, its state says why (no password), pull now answers 502, the worker backs off without crashing, and the source_down alert fires", async () => {
    const name = await addSource(db, {
      name: "down",
      type: "redis",
      url: "redis://:s3cret-pass@127.0.0.1:9",
      kind: "spatial",
      options: { stream: "s", group: "g" },
    });
    const added = await getSource(db.pool, name, new Date());
    expect(added.state.connected).toBe(false);
    expect(added.state.lastError).toBeTruthy();
    expect(added.url).not.toContain("s3cret-pass");
    expect(JSON.stringify(added)).not.toContain("s3cret-pass");

    const err = await pull(db, name).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(502);
    expect((err as AppError).message).not.toContain("s3cret-pass");

    const worker = startRuntime({
      db,
      log: () => {},
      leaseMs: 2000,
      pollMs: 50,
      replay: { pollMs: 50, backoff: { baseMs: 20, maxMs: 200 } },
    });
    try {
      // The next attempt waits for the backoff; make it due now, as time passing would.
      await db.pool.query("UPDATE source SET next_attempt_at = now() WHERE name = $1", [name]);
      const failures = (await getSource(db.pool, name, new Date())).state.failures;
      await waitFor(
        "the worker to try again",
        async () => (await getSource(db.pool, name, new Date())).state.failures > failures,
        20_000,
        100,
      );
      const after = await getSource(db.pool, name, new Date());
      expect(new Date(after.state.nextAttemptAt!).getTime()).toBeGreaterThan(Date.now());
    } finally {
      await worker.stop();
    }

    await db.pool.query("UPDATE source SET failing_since = now() - interval '10 minutes' WHERE name = $1", [name]);
    const alerts = await evaluateAlerts(db.pool, new Date());
    expect(alerts.fired.map((a) => [a.ruleId, a.value])).toContainEqual(["source-down", 1]);

    // Paused: not failing any more as far as the alert is concerned.
    await updateSource(db.pool, name, { enabled: false }, TEST_CTX());
    const later = await evaluateAlerts(db.pool, new Date());
    expect(later.resolved.map((a) => a.ruleId)).toContain("source-down");
  });
});
