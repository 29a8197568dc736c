import { describe, expect, it } from "vitest";
import { sharedBuffers } from "./embedded";

const GiB = 2 ** 30;

describe("the embedded PostgreSQL's shared_buffers", () => {
  it("is a quarter of the machine's memory", () => {
    expect(sharedBuffers(undefined, 16 * GiB)).toBe("4096MB");
    expect(sharedBuffers(undefined, 6 * GiB)).toBe("1536MB");
  });
  it("stays between PostgreSQL's stock 128MB and 8GB", () => {
    expect(sharedBuffers(undefined, 256 * 2 ** 20)).toBe("128MB");
    expect(sharedBuffers(undefined, 64 * GiB)).toBe("8192MB");
  });
  it("is what REDRIVE_PG_SHARED_BUFFERS says when set", () => {
    expect(sharedBuffers("512MB", 64 * GiB)).toBe("512MB");
  });
});
