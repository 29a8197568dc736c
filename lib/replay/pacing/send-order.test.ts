import { describe, expect, it } from "vitest";
import { SendOrder } from "./send-order";

const flush = () => new Promise((r) => setImmediate(r));

describe("SendOrder", () => {
  it("lets a later page send only after every earlier page of the same batch has left", async () => {
    const order = new SendOrder();
    const seen: string[] = [];
    const p5 = order.enter("b1", 5);
    const p9 = order.enter("b1", 9);
    void p5.ready.then(() => seen.push("p5"));
    void p9.ready.then(() => seen.push("p9"));
    await flush();
    expect(seen).toEqual(["p5"]);
    // A retry with an earlier position, claimed after: it goes before p9 too (p5 is already sending).
    const p1 = order.enter("b1", 1);
    void p1.ready.then(() => seen.push("p1"));
    await flush();
    expect(seen).toEqual(["p5", "p1"]);
    p5.leave();
    await flush();
    expect(seen).toEqual(["p5", "p1"]);
    p1.leave();
    await flush();
    expect(seen).toEqual(["p5", "p1", "p9"]);
    p9.leave();
  });

  it("keeps batches apart and survives a page leaving before its turn", async () => {
    const order = new SendOrder();
    const a1 = order.enter("a", 1);
    const a2 = order.enter("a", 5);
    const a3 = order.enter("a", 9);
    const b1 = order.enter("b", 100);
    let b1Ready = false;
    let a3Ready = false;
    void b1.ready.then(() => (b1Ready = true));
    void a3.ready.then(() => (a3Ready = true));
    await flush();
    expect(b1Ready).toBe(true);
    a2.leave(); // gave up (an error) while a1 still sends
    await flush();
    expect(a3Ready).toBe(false);
    a1.leave();
    await flush();
    expect(a3Ready).toBe(true);
    a1.leave(); // twice is harmless
    a3.leave();
    b1.leave();
  });

  it("lets the first page of a batch go at once", async () => {
    const order = new SendOrder();
    const only = order.enter("x", 42);
    await expect(Promise.race([only.ready.then(() => "ready"), flush().then(() => "waiting")])).resolves.toBe("ready");
  });
});
