import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import { getSource, readSourceConfig, updateSource } from "../../../lib/sources/manage-sources";
import { testSource } from "../../../lib/sources/pull-now";
import { spatialEnvelope } from "../../replay/fixtures";
import { setTestAuthEnv, TEST_CTX } from "../auth-helpers";
import { testDb } from "../helpers";
import { addSource, pull } from "./origin-flow";
import { Broker, RABBITMQ_URL } from "./rabbitmq-broker";

// Editing a source instead of removing and re-adding it (which loses its history): a wrong password is replaced
// alone, the stored secret is never needed to do it nor shown, the change is sealed and audited.

setTestAuthEnv();

let db: Db;
let broker: Broker;

beforeAll(async () => {
  db = await testDb();
  broker = await Broker.connect();
});

afterAll(async () => {
  await broker.cleanup();
  await db.pool.end();
  await closeDb();
});

describe("editing a source", () => {
  it("replaces a wrong password alone: the source connects, keeps its history, and the audit names the change without the secret", async () => {
    const t = await broker.topology();
    const good = new URL(RABBITMQ_URL);
    const wrong = new URL(RABBITMQ_URL);
    wrong.password = "not-the-password";
    const name = await addSource(db, {
      name: `edit-${t.suffix}`,
      type: "rabbitmq",
      url: wrong.toString(),
      kind: "spatial",
      options: { queue: t.dlq },
    });
    expect((await getSource(db.pool, name, new Date())).state).toMatchObject({ connected: false, failures: 1 });
    await db.pool.query("UPDATE source SET pulled_total = 7 WHERE name = $1", [name]);

    const view = await updateSource(db.pool, name, { password: decodeURIComponent(good.password) }, TEST_CTX());
    expect(view.url).not.toContain(good.password);
    expect(view.state).toMatchObject({ failures: 0, nextAttemptAt: null });
    expect((await readSourceConfig(db.pool, name)).url).toBe(good.toString());
    const sealed = (await db.pool.query<{ url_sealed: string }>("SELECT url_sealed FROM source WHERE name = $1", [name])).rows[0]!
      .url_sealed;
    expect(sealed).not.toContain(good.password);
    await testSource(db.pool, name);

    await broker.publish(
      t.exchange,
      "orders.eu",
      [Buffer.from(spatialEnvelope({ key: "edited-1", observedAt: 1, featureId: "e" }))],
      () => ({
        messageId: "edited-1",
      }),
    );
    await broker.rejectAll(t.work, 1);
    await broker.waitForCount(t.dlq, 1);
    expect(await pull(db, name)).toMatchObject({ pulled: 1, created: 1 });
    expect((await getSource(db.pool, name, new Date())).state.totals.pulled).toBe(8);

    const { rows } = await db.pool.query<{ action: string; before: unknown; after: unknown }>(
      "SELECT action, before, after FROM audit_event WHERE target_type = 'source' AND target_id = $1 AND action = 'source.updated'",
      [name],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.after).toMatchObject({ secretsReplaced: ["password"], options: { queue: t.dlq } });
    expect(JSON.stringify(rows[0])).not.toContain(good.password);
    expect(JSON.stringify(rows[0])).not.toContain("not-the-password");
  });

  it("keeps the stored credentials when a new URL gives none, and refuses a URL of another type naming the field", async () => {
    const t = await broker.topology();
    const name = await addSource(db, {
      name: `edit-url-${t.suffix}`,
      type: "rabbitmq",
      url: RABBITMQ_URL,
      kind: "spatial",
      options: { queue: t.dlq },
    });
    const u = new URL(RABBITMQ_URL);
    const bare = `amqp://${u.host}${u.pathname}`;
    await updateSource(db.pool, name, { url: bare }, TEST_CTX());
    expect((await readSourceConfig(db.pool, name)).url).toBe(`amqp://${u.username}:${u.password}@${u.host}${u.pathname}`);
    await expect(updateSource(db.pool, name, { url: "nats://elsewhere:4222" }, TEST_CTX())).rejects.toMatchObject({
      status: 422,
      issues: [{ path: "url" }],
    });
  });

  it("`redrive source update` takes the add command's flags: a password alone, an option merged into the stored ones", async () => {
    const t = await broker.topology();
    const wrong = new URL(RABBITMQ_URL);
    wrong.password = "nope";
    const name = await addSource(db, {
      name: `edit-cli-${t.suffix}`,
      type: "rabbitmq",
      url: wrong.toString(),
      kind: "spatial",
      options: { queue: t.dlq },
    });
    const cli = async (args: string[]) => {
      try {
        const { stderr } = await promisify(execFile)(process.execPath, ["bin/redrive.mjs", ...args], {
          env: { ...process.env, DATABASE_URL: db.url },
          timeout: 60_000,
        });
        return { code: 0, stderr };
      } catch (err) {
        const e = err as { code?: number; stderr?: string };
        return { code: e.code ?? -1, stderr: e.stderr ?? "" };
      }
    };
    const fixed = await cli(["source", "update", name, "--password", decodeURIComponent(new URL(RABBITMQ_URL).password)]);
    expect(fixed).toMatchObject({ code: 0 });
    expect(fixed.stderr).toMatch(/updated rabbitmq source .* \(amqp:\/\/redacted@/);
    expect(fixed.stderr).toMatch(/connected: \d+ waiting/);
    expect((await readSourceConfig(db.pool, name)).url).toBe(new URL(RABBITMQ_URL).toString());
    const bad = await cli(["source", "update", name, "--queue", ""]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--queue/);
    expect((await readSourceConfig(db.pool, name)).options).toEqual({ queue: t.dlq });
  });
});
