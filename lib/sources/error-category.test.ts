import { describe, expect, it } from "vitest";
import { sourceErrorCategory, sourceErrorText } from "./error-category";
import { SqsSourceError } from "./sqs/errors";

describe("a source's last failure as readers see it", () => {
  it("is a category from the connector error's code, never the broker's words", () => {
    expect(sourceErrorCategory(new SqsSourceError("unreachable", "receive on http://10.0.0.7:9324/q failed: ECONNREFUSED"))).toBe(
      "unreachable",
    );
    expect(sourceErrorCategory(Object.assign(new Error("ACCESS_REFUSED - Login was refused"), { code: "refused" }))).toBe("refused");
    expect(sourceErrorCategory(Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:5672"), { code: "ECONNREFUSED" }))).toBe(
      "unreachable",
    );
    expect(sourceErrorCategory(new Error("<!DOCTYPE html> internal panel"))).toBe("other");
    expect(sourceErrorText("refused")).toBe("the broker refused the source's credentials or permissions");
    expect(sourceErrorText(null)).toBe("the broker refused a request");
    expect(sourceErrorText("__proto__")).toBe("the broker refused a request");
  });
});
