import { describe, expect, it } from "vitest";
import { ClockSync } from "./clock-sync";

describe("ClockSync", () => {
  it("is 0 before any sample", () => {
    expect(new ClockSync().offsetMs()).toBe(0);
  });

  it("takes the sample with the shortest round trip: its error is at most half of it", () => {
    const c = new ClockSync();
    // The database's clock is 500 ms ahead. A slow answer (queued 90 ms on the way back) would say ~545.
    c.add({ sentAt: 1000, receivedAt: 1100, dbAt: 1510 });
    c.add({ sentAt: 2000, receivedAt: 2004, dbAt: 2502 });
    c.add({ sentAt: 3000, receivedAt: 3060, dbAt: 3505 });
    expect(c.offsetMs()).toBe(500);
    expect(c.toLocal(10_500)).toBe(10_000);
  });

  it("forgets old samples, so a clock that drifts is followed", () => {
    const c = new ClockSync();
    c.add({ sentAt: 0, receivedAt: 1, dbAt: 100.5 });
    for (let i = 1; i <= 16; i++) c.add({ sentAt: i * 1000, receivedAt: i * 1000 + 2, dbAt: i * 1000 + 1 + 130 });
    expect(c.offsetMs()).toBe(130);
  });
});
