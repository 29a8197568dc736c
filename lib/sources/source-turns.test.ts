import { describe, expect, it } from "vitest";
import { SourceTurns } from "./source-turns";

describe("SourceTurns", () => {
  it("runs one source's turns one after another, and says while a request waits", async () => {
    const turns = new SourceTurns();
    const order: string[] = [];
    let endPull = () => {};
    const pull = turns.run(
      "a",
      async () => {
        order.push("pull starts");
        await new Promise<void>((r) => (endPull = r));
        order.push("pull ends");
      },
      { wants: false },
    );
    expect(turns.wanted("a")).toBe(false);
    const request = turns.run("a", async () => {
      order.push("request");
      return 7;
    });
    const other = turns.run("b", async () => order.push("other source"));
    await other;
    expect(turns.wanted("a")).toBe(true);
    expect(order).toEqual(["pull starts", "other source"]);
    endPull();
    await pull;
    expect(await request).toBe(7);
    expect(order).toEqual(["pull starts", "other source", "pull ends", "request"]);
    expect(turns.wanted("a")).toBe(false);
  });

  it("a failed turn does not stop the next one", async () => {
    const turns = new SourceTurns();
    await expect(turns.run("a", () => Promise.reject(new Error("broker down")))).rejects.toThrow("broker down");
    expect(await turns.run("a", async () => "next")).toBe("next");
  });
});
