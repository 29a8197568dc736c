import { describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";

// REDRIVE_OUTBOUND_HOSTS is read once per process (lib/env.ts): set before anything reads the environment.
process.env.REDRIVE_OUTBOUND_HOSTS = "sink.example.com";

const { createBatch } = await import("../../lib/replay/batch/create-batch");
const { updateAlertRule } = await import("../../lib/ops/alerts/change-alert-rule");
const { CreateBatchBody } = await import("../../lib/replay/batch/batch-schemas");

describe("REDRIVE_OUTBOUND_HOSTS", () => {
  it("refuses a sink or a webhook elsewhere with a 422 naming the field, before touching the database", async () => {
    const pool = {} as never; // never reached: the refusal comes first
    const input = CreateBatchBody.parse({
      ids: ["1"],
      sink: { type: "http", url: "http://169.254.169.254/latest/meta-data" },
      ratePerSecond: 10,
    });
    const user = { scope: UNSCOPED, userId: "u", email: "s@x", role: "supervisor" as const };
    await expect(createBatch(pool, input, user, { now: new Date() })).rejects.toMatchObject({
      status: 422,
      issues: [{ path: "sink.url", message: "host 169.254.169.254 is not in REDRIVE_OUTBOUND_HOSTS" }],
    });
    const actor = { id: "u", email: "s@x", role: "supervisor" };
    await expect(
      updateAlertRule(
        pool,
        "dlq-size",
        { webhookUrl: "http://127.0.0.1:9/hook" },
        { actor, scope: UNSCOPED, requestId: "t", now: new Date() },
      ),
    ).rejects.toMatchObject({
      status: 422,
      issues: [{ path: "webhookUrl" }],
    });
  });
});
