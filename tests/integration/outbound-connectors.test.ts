import { createServer as createHttpServer, type Server } from "node:http";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb } from "../../lib/db/client";
import type { OutboundConnector } from "../../lib/net/outbound-connectors";
import { withOutboundGuard } from "../../lib/net/outbound-scope";
import { createBatch } from "../../lib/replay/batch/create-batch";
import { SERVER_SINKS } from "../../lib/replay/sinks/registry.server";
import { CreateBatchBody } from "../../lib/replay/batch/batch-schemas";
import { HttpSinkSchema } from "../../lib/replay/sinks/http/http-config";
import { PostgisSinkSchema } from "../../lib/replay/sinks/postgis/postgis-sink-schema";
import { storedPostgisSink } from "../../lib/replay/sinks/postgis/check-postgis-target";
import { targetClient } from "../../lib/replay/sinks/postgis/inspect-postgis-target";
import { httpSink } from "../../lib/replay/sinks/http/http-sink";
import { postgisSink } from "../../lib/replay/sinks/postgis/postgis-sink";
import { closeTargetPools } from "../../lib/replay/sinks/postgis/target-pools";
import type { SinkResult, Submission } from "../../lib/replay/sinks/sink";
import { updateAlertRule } from "../../lib/ops/alerts/change-alert-rule";
import { deliverFired } from "../../lib/ops/alerts/webhook";
import { getEnv } from "../../lib/env";
import { updateSsoSettings } from "../../lib/auth/sso-settings";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { createRemoteJWKSet } from "jose";
import { setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// The outbound rule, connector by connector (lib/net/outbound-connectors.ts lists them; `probes` below must name
// each one, or this file does not type-check). vitest.config.ts allows 127.0.0.1 and ::1 for the other tests; every
// target here is on 127.0.0.2, loopback that nobody allowed. Each listener counts what reaches it: nothing may.

setTestAuthEnv();

type Db = Awaited<ReturnType<typeof testDb>>;
let db: Db;
let http: Server;
let tcp: TcpServer;
let httpBase: string;
let tcpPort: number;
let reached = 0;

beforeAll(async () => {
  db = await testDb({ truncate: ["alert_event", "app_setting"] });
  http = createHttpServer((_req, res) => {
    reached++;
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.2", resolve));
  httpBase = `http://127.0.0.2:${(http.address() as AddressInfo).port}`;
  tcp = createTcpServer((socket) => {
    reached++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.2", resolve));
  tcpPort = (tcp.address() as AddressInfo).port;
});

afterAll(async () => {
  await closeTargetPools();
  await new Promise((resolve) => http.close(resolve));
  await new Promise((resolve) => tcp.close(resolve));
  await db.pool.end();
  await closeDb();
});

const REFUSED = "refused: 127.0.0.2 is a loopback address; an admin may allow it with REDRIVE_OUTBOUND_ALLOW_PRIVATE=127.0.0.2";
const supervisor = { scope: UNSCOPED, userId: "u", email: "s@x", role: "supervisor" as const };
const ctx = { actor: SYSTEM_ACTOR, scope: UNSCOPED, requestId: "t", now: new Date() };
const never = {} as never; // a pool the refusal must come before

const submission: Submission = {
  itemId: "1",
  batchId: "1",
  deadLetterId: "1",
  kind: "spatial",
  idempotencyKey: "k-1",
  entityKey: "e-1",
  observedAt: "2026-11-01T00:00:00.000000Z",
  payload: { type: "Feature", id: "f-1", geometry: { type: "Point", coordinates: [1, 2] }, properties: {} },
};

const submit = (sink: { submit: (s: Submission, signal: AbortSignal) => Promise<SinkResult> }) =>
  sink.submit(submission, new AbortController().signal);

async function refusedBatch(sink: unknown): Promise<unknown> {
  const input = CreateBatchBody.parse({ ids: ["1"], sink, ratePerSecond: 10 });
  return createBatch(never, input, supervisor, { now: new Date() }).then(
    () => null,
    (e: unknown) => e,
  );
}

/** Each connector: refused when its target is saved or a batch is made (422 naming the field), and when it connects. */
const probes: Record<OutboundConnector, () => Promise<void>> = {
  "http-sink": async () => {
    expect(await refusedBatch({ type: "http", url: `${httpBase}/ingest` })).toMatchObject({
      status: 422,
      issues: [{ path: "sink.url", message: REFUSED }],
    });
    const sink = httpSink(HttpSinkSchema.parse({ type: "http", url: `${httpBase}/ingest` }), "w");
    expect(await submit(sink)).toMatchObject({ reason: REFUSED });
  },

  "postgis-sink": async () => {
    const sink = (url: string) => ({ type: "postgis", url, table: "gis.features" });
    for (const url of [
      `postgresql://postgres@127.0.0.2:${tcpPort}/postgres`,
      `postgresql://postgres@93.184.215.14:${tcpPort}/postgres?host=127.0.0.2`,
      `postgresql://postgres@93.184.215.14:${tcpPort}/postgres?hostaddr=127.0.0.2`,
      `postgresql://postgres@93.184.215.14,127.0.0.2:${tcpPort}/postgres`,
    ]) {
      expect(await refusedBatch(sink(url)), url).toMatchObject({ status: 422, issues: [{ path: "sink.url", message: REFUSED }] });
    }
    expect(await refusedBatch(sink("postgresql://postgres@%2Fvar%2Frun%2Fpostgresql/postgres"))).toMatchObject({
      status: 422,
      issues: [{ path: "sink.url", message: "refused: /var/run/postgresql is a local socket path, which no sink or webhook may use" }],
    });
    // At connect time (a batch stored before, a name that resolves elsewhere now): the check's client and the sink's pool.
    const url = `postgresql://postgres@127.0.0.2:${tcpPort}/postgres`;
    await expect(targetClient(url).connect()).rejects.toThrow(REFUSED);
    const result = await submit(postgisSink(storedPostgisSink(PostgisSinkSchema.parse(sink(url)))));
    expect(result).toMatchObject({ outcome: "failed", reason: expect.stringContaining(REFUSED) });
  },

  "alert-webhook": async () => {
    await expect(updateAlertRule(never, "dlq-size", { webhookUrl: `${httpBase}/hook` }, ctx)).rejects.toMatchObject({
      status: 422,
      issues: [{ path: "webhookUrl", message: REFUSED }],
    });
    await db.pool.query("UPDATE alert_rule SET webhook_url = $1 WHERE id = 'dlq-size'", [`${httpBase}/hook`]);
    await db.pool.query("INSERT INTO alert_event (rule_id, fired_at, value, message) VALUES ('dlq-size', now(), 5, 'five')");
    expect(await deliverFired(db.pool, new Date())).toBe(0);
    const { rows } = await db.pool.query<{ delivery_error: string }>("SELECT delivery_error FROM alert_event WHERE rule_id = 'dlq-size'");
    expect(rows[0]?.delivery_error).toBe(REFUSED);
  },

  "sso-discovery": async () => {
    await expect(updateSsoSettings(db.pool, getEnv(), { issuer: httpBase, clientId: "c" }, ctx)).rejects.toMatchObject({
      status: 422,
      issues: [{ path: "issuer", message: REFUSED }],
    });
    // An issuer stored before: the instance built for it fetches its discovery document under the guard.
    await db.pool.query(`INSERT INTO app_setting (key, value, updated_at) VALUES ('auth.sso', $1, now())`, [
      JSON.stringify({ issuer: httpBase, clientId: "c" }),
    ]);
    const { currentSsoConfig, getAuth } = await import("../../lib/auth/auth");
    const { forgetSsoSettings } = await import("../../lib/auth/sso-config");
    forgetSsoSettings();
    expect((await currentSsoConfig(new Date())).provider).toMatchObject({ issuer: httpBase });
    const context = await getAuth().$context;
    expect(context.socialProviders.map((p) => p.id)).not.toContain("oidc");
    await db.pool.query(`DELETE FROM app_setting WHERE key = 'auth.sso'`);
    forgetSsoSettings();
  },

  "sso-jwks": async () => {
    // jose fetches the keys with the global fetch while better-auth verifies an ID token, inside the handler's guard.
    const jwks = createRemoteJWKSet(new URL(`${httpBase}/jwks`));
    const err = await withOutboundGuard(() => jwks({ alg: "RS256", kid: "k" })).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect((err?.cause as Error | undefined)?.message ?? err?.message).toBe(REFUSED);
  },
};

describe("every outbound connector", () => {
  it("the sink registry checks every sink that connects anywhere, under a connector probed here", () => {
    const connects = Object.values(SERVER_SINKS).flatMap((p) => ("connector" in p.outbound ? [p.outbound.connector] : []));
    for (const c of connects) expect(Object.keys(probes)).toContain(c);
    expect(connects.sort()).toEqual(["http-sink", "postgis-sink"]);
  });

  for (const [name, probe] of Object.entries(probes)) {
    it(`${name}: refuses a loopback target without REDRIVE_OUTBOUND_ALLOW_PRIVATE, and nothing reaches it`, async () => {
      await probe();
      expect(reached).toBe(0);
    });
  }
});
